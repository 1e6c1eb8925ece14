/**
 * Exponential backoff with jitter: `baseMs`, 2 × `baseMs`, 4 × `baseMs` … for attempts 1, 2, 3 …, capped at
 * `capMs`, each drawn from [d/2, d] so that many rows failing together do not all retry at the same moment.
 */
export function jitteredBackoffMs(attempt: number, baseMs: number, capMs: number, random = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
