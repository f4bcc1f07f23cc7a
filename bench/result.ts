// Machine-readable results for bench/run.ts: one `BENCH {json}` line per result on stdout, beside
// each bench's human-readable output.
export function emitResult(bench: string, result: Record<string, unknown>): void {
  console.log(`BENCH ${JSON.stringify({ bench, ...result })}`);
}

/** A wrk latency ("812.00us", "6.40ms", "1.20s") in milliseconds. */
export function wrkMs(text: string | undefined): number | null {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  if (!m) return null;
  const scale = { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2] as 'us' | 'ms' | 's' | 'm'];
  return Number(m[1]) * scale;
}
