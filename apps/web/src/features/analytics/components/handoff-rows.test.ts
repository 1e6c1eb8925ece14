import { describe, expect, it } from 'vitest';
import { followUpRows, handoffRows } from './handoffs-section.tsx';
import { outcomeColumns } from './outcomes-section.tsx';
import { voiceRows } from './voice-section.tsx';

const p = (p50: number | null, p90: number | null) => ({ p50, p90 });

describe('analytics table rows (also the CSV rows)', () => {
  it('hand-offs: one row per reason in words, then the total', () => {
    expect(
      handoffRows({
        conversations: 5,
        handedOff: 2,
        handedOffShare: 0.4,
        total: { reason: 'ALL', handoffs: 3, answered: 2, answerSeconds: p(90, 114) },
        byReason: [
          { reason: 'HUMAN_REQUESTED', handoffs: 2, answered: 2, answerSeconds: p(90, 114) },
          { reason: 'GUARD_FAILED', handoffs: 1, answered: 0, answerSeconds: p(null, null) },
        ],
      }),
    ).toEqual([
      ['The AI asked for a person', 2, 2, '90 s', '114 s'],
      ['A reply failed the check', 1, 0, '–', '–'],
      ['All hand-offs', 3, 2, '90 s', '114 s'],
    ]);
  });

  it('follow-ups: by rank, then all, with the share that brought the prospect back', () => {
    expect(
      followUpRows({
        followedUp: 2,
        total: { number: null, sent: 3, broughtBack: 1, broughtBackShare: 1 / 3 },
        byNumber: [
          { number: 1, sent: 2, broughtBack: 1, broughtBackShare: 0.5 },
          { number: 2, sent: 1, broughtBack: 0, broughtBackShare: 0 },
        ],
      }),
    ).toEqual([
      ['Follow-up 1', 2, 1, '50 %'],
      ['Follow-up 2', 1, 0, '0 %'],
      ['All follow-ups', 3, 1, '33.3 %'],
    ]);
  });

  it('outcomes: the analysed outcomes first, then the states of the conversations without an analysis', () => {
    const day = { day: '2025-03-10', ended: 1, needsHuman: 0, errored: 0, ignored: 2, noResponse: 0, inProgress: 3, analysed: { booked: 4 } };
    const columns = outcomeColumns({ analysedOutcomes: ['booked', 'qualified'], days: [day] });
    expect(columns.map((c) => [c.label, c.of(day)])).toEqual([
      ['booked', 4],
      ['qualified', 0],
      ['Ended', 1],
      ['Needs human', 0],
      ['Errored', 0],
      ['Ignored', 2],
      ['No response', 0],
      ['In progress', 3],
    ]);
  });

  it('voice: the response latency p50/p90 over the measured calls', () => {
    const rows = voiceRows({
      calls: 2, inbound: 1, outbound: 1, pickedUp: 2, voicemail: 0, pickUpRate: 1, voicemailRate: 0, averageDurationSeconds: 75,
      responseLatencyMs: p(700, 1080), latencyCalls: 2,
    });
    expect(rows.at(-1)).toEqual(['Response latency p50 / p90', '700 ms / 1080 ms (2 calls)']);
  });
});
