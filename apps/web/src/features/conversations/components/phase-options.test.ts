import { describe, expect, it } from 'vitest';
import { isAgentWorking, phaseOptions } from './phase-options.ts';

describe('phaseOptions', () => {
  it('lists -3, -2, -1, each phase with its prompt cut to 50 characters, N and 9999', () => {
    const long = 'Discovery: learn how the prospect handles support today and what hurts most';
    const options = phaseOptions([{ index: 0, prompt: long }, { index: 1, prompt: 'Value' }], 2);
    expect(options.map((o) => o.value)).toEqual(['-3', '-2', '-1', '0', '1', '2', '9999']);
    expect(options[3].label).toBe(`0: ${long.slice(0, 49)}…`);
    expect(options[3].label.length).toBe('0: '.length + 50);
    expect(options[5].label).toBe('2: End conversation');
    expect(options[6].label).toBe('9999: Ignored conversation');
  });

  it('labels phases by number when the viewer gets no prompts', () => {
    expect(phaseOptions([], 1).map((o) => o.label)).toEqual([
      '-3: Waiting for more messages',
      '-2: Needs human intervention',
      '-1: Errored',
      'Phase 0',
      '1: End conversation',
      '9999: Ignored conversation',
    ]);
  });
});

describe('isAgentWorking', () => {
  const base = { phaseCount: 3, aiPaused: false };
  it('is true while waiting, or when a prospect message awaits an answer in a working phase', () => {
    expect(isAgentWorking({ ...base, phase: -3, messages: [] })).toBe(true);
    expect(isAgentWorking({ ...base, phase: 1, messages: [{ role: 'AGENT' }, { role: 'PROSPECT' }] })).toBe(true);
  });
  it('is false when answered, ended, ignored or paused', () => {
    expect(isAgentWorking({ ...base, phase: 1, messages: [{ role: 'PROSPECT' }, { role: 'AGENT' }] })).toBe(false);
    expect(isAgentWorking({ ...base, phase: 3, messages: [{ role: 'PROSPECT' }] })).toBe(false);
    expect(isAgentWorking({ ...base, phase: 9999, messages: [{ role: 'PROSPECT' }] })).toBe(false);
    expect(isAgentWorking({ ...base, aiPaused: true, phase: 1, messages: [{ role: 'PROSPECT' }] })).toBe(false);
  });
});
