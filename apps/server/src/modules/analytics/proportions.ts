/**
 * Statistics of the A/B comparison (docs/analytics.md "A/B tests"): 95 % Wilson score intervals of each arm's
 * conversion and a two-sided two-proportion z-test of their difference (pooled standard error).
 */

const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** The 95 % Wilson score interval of `successes` out of `trials`; null without trials. */
export function wilsonInterval(successes: number, trials: number, z = Z95): Interval | null {
  if (trials <= 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Standard normal cumulative distribution (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export interface ProportionTest {
  /** rateB - rateA. */
  difference: number;
  /** 95 % (Wald, unpooled) interval of the difference. */
  differenceInterval: Interval;
  z: number;
  /** Two-sided p-value; 1 when the pooled rate is 0 or 1 (no evidence either way). */
  pValue: number;
  significant: boolean;
}

/** Two-sided two-proportion z-test of B against A at the 5 % level; null when an arm has no trials. */
export function twoProportionTest(successesA: number, trialsA: number, successesB: number, trialsB: number): ProportionTest | null {
  if (trialsA <= 0 || trialsB <= 0) return null;
  const pA = successesA / trialsA;
  const pB = successesB / trialsB;
  const pooled = (successesA + successesB) / (trialsA + trialsB);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / trialsA + 1 / trialsB));
  const z = se === 0 ? 0 : (pB - pA) / se;
  const pValue = se === 0 ? 1 : 2 * (1 - normalCdf(Math.abs(z)));
  const seDiff = Math.sqrt((pA * (1 - pA)) / trialsA + (pB * (1 - pB)) / trialsB);
  return {
    difference: pB - pA,
    differenceInterval: { low: pB - pA - Z95 * seDiff, high: pB - pA + Z95 * seDiff },
    z,
    pValue,
    significant: pValue < 0.05,
  };
}
