// Machine-readable results for bench/run.ts: one `BENCH {json}` line per result on stdout, beside
// each bench's human-readable output.
export function emitResult(bench: string, result: Record<string, unknown>): void {
  console.log(`BENCH ${JSON.stringify({ bench, ...result })}`);
}
