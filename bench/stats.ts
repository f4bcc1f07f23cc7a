// Order statistics the benches print, one definition for all of them.

/**
 * The value of `xs` at percentile `p` (0–100): the element at ⌊p/100 · n⌋ of the sorted values, the
 * largest at 100; NaN when there is none.
 */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The middle value of `xs`, the upper of the two middle ones for an even count; NaN when there is none. */
export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}
