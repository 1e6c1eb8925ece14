import { describe, expect, it } from 'vitest';
import { normalCdf, twoProportionTest, wilsonInterval } from './proportions.ts';

describe('wilsonInterval', () => {
  it('matches the textbook 95 % intervals', () => {
    const a = wilsonInterval(10, 100)!;
    expect(a.low).toBeCloseTo(0.05523, 4);
    expect(a.high).toBeCloseTo(0.17437, 4);
    expect(wilsonInterval(0, 10)).toEqual({ low: 0, high: expect.closeTo(0.27753, 4) });
    const all = wilsonInterval(3, 3)!;
    expect(all.low).toBeCloseTo(0.43850, 4);
    expect(all.high).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('twoProportionTest', () => {
  it('10/100 against 20/100 is significant at 5 % (z 1.98, p 0.048)', () => {
    const t = twoProportionTest(10, 100, 20, 100)!;
    expect(t.z).toBeCloseTo(1.98030, 4);
    expect(t.pValue).toBeCloseTo(0.04767, 4);
    expect(t.difference).toBeCloseTo(0.1, 10);
    expect(t.significant).toBe(true);
  });

  it('1/10 against 2/10 is not (p 0.53); no trials or no variation gives no evidence', () => {
    const t = twoProportionTest(1, 10, 2, 10)!;
    expect(t.z).toBeCloseTo(0.62622, 4);
    expect(t.pValue).toBeCloseTo(0.53117, 4);
    expect(t.significant).toBe(false);
    expect(twoProportionTest(0, 0, 1, 2)).toBeNull();
    expect(twoProportionTest(0, 5, 0, 5)).toMatchObject({ z: 0, pValue: 1, significant: false });
  });

  it('normalCdf is the standard normal distribution', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });
});
