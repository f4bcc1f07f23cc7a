/**
 * Exponential backoff with jitter: the n-th consecutive failure (n ≥ 1) waits between half and all
 * of min(maxMs, baseMs · 2^(n-1)), so that many nodes failing together do not retry in step.
 */
export function backoffDelay(failures: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
