import { describe, expect, it } from 'vitest';
import { funnelRows, toCsv } from './funnel-rows.ts';

describe('funnelRows', () => {
  it('gives percent of started and the drop-off between steps', () => {
    const rows = funnelRows({ started: 8, steps: [{ phase: 0, label: 'Phase 0', reached: 6 }, { phase: 1, label: 'Phase 1', reached: 3 }], ended: 1, booked: 2 });
    expect(rows).toEqual([
      { step: 'started', label: 'Started', count: 8, percent: 100, dropOff: null },
      { step: '0', label: 'Phase 0', count: 6, percent: 75, dropOff: 2 },
      { step: '1', label: 'Phase 1', count: 3, percent: 37.5, dropOff: 3 },
      { step: 'ended', label: 'Ended', count: 1, percent: 12.5, dropOff: 2 },
      { step: 'booked', label: 'Booked', count: 2, percent: 25, dropOff: null },
    ]);
    expect(funnelRows({ started: 0, steps: [], ended: 0, booked: 0 })[0].percent).toBeNull();
  });

  it('quotes CSV cells that need it', () => {
    expect(toCsv(['a', 'b'], [['x,y', 1], ['say "hi"', null]])).toBe('a,b\r\n"x,y",1\r\n"say ""hi""",\r\n');
  });
});
