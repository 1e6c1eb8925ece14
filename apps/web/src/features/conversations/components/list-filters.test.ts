import { describe, expect, it } from 'vitest';
import { PHASE_OPTIONS } from './list-filters.tsx';

describe('the phase filter (issue 24 item 8)', () => {
  it('offers the phases in words, with the codes the list query takes as values', () => {
    expect(PHASE_OPTIONS.slice(0, 4)).toEqual([
      { value: '-3', label: 'Waiting for more messages' },
      { value: '-2', label: 'Needs human intervention' },
      { value: '-1', label: 'Errored' },
      { value: '9999', label: 'Ignored conversation' },
    ]);
    expect(PHASE_OPTIONS[4]).toEqual({ value: '0', label: 'Step 1 (phase 0)' });
  });
});
