import { describe, expect, it } from 'vitest';
import { COST_ROWS, formatDollars, PRICING_PERIODS, scaleCost } from './cost-periods.ts';

describe('pricing periods', () => {
  it('has the four periods of the spec and the six rows in order', () => {
    expect(PRICING_PERIODS.map((p) => [p.title, p.minutes])).toEqual([
      ['1 Minute', 1],
      ['1 Hour (60)', 60],
      ['1 Day (1440)', 1440],
      ['160 Hours (9600)', 9600],
    ]);
    expect(COST_ROWS.map((r) => r.label)).toEqual([
      'Total GPT Cost',
      'Total Azure TTS Cost',
      'Twilio Voice Minutes',
      'Twilio Speech Recognition',
      'Twilio Recordings (Monthly)',
      'Total Cost',
    ]);
  });
  it('scales the 1-minute value and shows dollars to 6 decimals', () => {
    expect(formatDollars(scaleCost(0.0013237, 60))).toBe('$0.079422');
    expect(formatDollars(0)).toBe('$0.000000');
    expect(formatDollars(scaleCost(0.1176, 9600))).toBe('$1,128.960000');
  });
});
