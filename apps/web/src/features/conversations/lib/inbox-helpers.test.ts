import { describe, expect, it } from 'vitest';
import { aiState, phaseWords } from './phase-words.ts';
import type { ConversationListItem, ConversationListResponse } from '@sales-agent/shared/schemas/conversation';
import { clearUnread } from './unread.ts';
import { relativeTime } from './relative-time.ts';

describe('phaseWords', () => {
  it('says a type without phases has not ended at phase 0', () => {
    expect(phaseWords(0, 0)).toBe('Phase 0');
  });

  it('names every phase code in the spec\'s words', () => {
    expect([-3, -2, -1, 0, 2, 3, 9999].map((p) => phaseWords(p, 3))).toEqual([
      'Waiting for more messages',
      'Needs human intervention',
      'Errored',
      'Step 1 of 3',
      'Step 3 of 3',
      'End conversation',
      'Ignored conversation',
    ]);
  });
});

describe('aiState', () => {
  it('puts needing a person first, then paused, then ended', () => {
    expect(aiState({ phase: -2, phaseCount: 3, aiPaused: true })).toBe('needs-human');
    expect(aiState({ phase: 1, phaseCount: 3, aiPaused: false, needsHuman: true })).toBe('needs-human');
    expect(aiState({ phase: 1, phaseCount: 3, aiPaused: true })).toBe('paused');
    expect(aiState({ phase: 3, phaseCount: 3, aiPaused: false })).toBe('ended');
    expect(aiState({ phase: -3, phaseCount: 3, aiPaused: false })).toBe('working');
  });
});

describe('clearUnread', () => {
  const row = (uuid: string, unread: boolean, dateSent: string | null) =>
    ({ uuid, unread, lastMessage: dateSent ? { role: 'PROSPECT', preview: 'Hi', dateSent } : null }) as ConversationListItem;
  const page = (...conversations: ConversationListItem[]): ConversationListResponse => ({ conversations, totalPages: 1, totalPagesIsLowerBound: false });

  it('shows the row read at once when the user has seen its latest message, leaving the other rows', () => {
    const list = page(row('u1', true, '2026-01-01T10:00:00.000Z'), row('u2', true, '2026-01-01T09:00:00.000Z'));
    const next = clearUnread(list, 'u1', '2026-01-01T10:00:00.000Z')!;
    expect(next.conversations.map((c) => c.unread)).toEqual([false, true]);
    expect(next.conversations[1]).toBe(list.conversations[1]);
    expect(list.conversations[0].unread).toBe(true);
  });

  it('keeps the mark of a row whose latest message is newer than what was seen', () => {
    const list = page(row('u1', true, '2026-01-01T10:00:00.001Z'));
    expect(clearUnread(list, 'u1', '2026-01-01T10:00:00.000Z')).toBe(list);
  });

  it('returns the page unchanged when nothing is to clear, and no page when none is cached', () => {
    const list = page(row('u1', false, '2026-01-01T10:00:00.000Z'));
    expect(clearUnread(list, 'u1', '2026-01-01T10:00:00.000Z')).toBe(list);
    expect(clearUnread(list, 'other', '2026-01-01T10:00:00.000Z')).toBe(list);
    expect(clearUnread(undefined, 'u1', '2026-01-01T10:00:00.000Z')).toBeUndefined();
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  it('says how long ago, then a short date', () => {
    expect(relativeTime('2026-06-15T11:59:40Z', now)).toBe('just now');
    expect(relativeTime('2026-06-15T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-06-15T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-06-14T11:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-06-11T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime('2026-05-01T12:00:00Z', now)).not.toMatch(/ago/);
  });
});
