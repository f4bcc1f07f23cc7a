// The event loop's time to write a statement's lists of numbers for PostgreSQL: node-postgres's own
// writing of a JavaScript array (the reference: what every statement did before) beside the
// adapter's literals (src/db/array-literal.ts), for the lists the service passes — a ping tick's
// session ids (src/sessions/socket-sessions.ts) and a telegram's webhook queue (src/webhooks/deliveries.ts).
// Each case is timed over --iterations calls after as many to warm up, --rounds times; medians printed.
// Usage: node --import tsx bench/array-params.ts [--iterations 200] [--rounds 5]
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { withArrayLiterals } from '../src/db/array-literal.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

// What pg runs on each parameter before it writes the Bind message (pg/lib/query.js).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

const { values: args } = parseArgs({
  options: { iterations: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } },
});
const ITERATIONS = Number(args.iterations);
const ROUNDS = Number(args.rounds);

const ids = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
const cases: Record<string, unknown[]> = {
  // One process's 10,000 sessions of a large account, recorded alive at each ping tick.
  pingTickIds: [ids(10_000, 4_000_000), new Date()],
  // A telegram queued for 1,000 webhook subscriptions: ids, serial, priority, claimed.
  webhookQueue: [
    ids(1_000, 1),
    Array<number>(1_000).fill(123_456),
    Array<number>(1_000).fill(0),
    Array.from({ length: 1_000 }, (_, i) => i % 3 === 0),
    30_000,
  ],
};

/** Milliseconds per call of `fn`, the median of the rounds. */
function timed(fn: () => unknown): number {
  const perCall: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < ITERATIONS; i++) fn();
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) fn();
    perCall.push((performance.now() - started) / ITERATIONS);
  }
  return median(perCall);
}

const result: Record<string, { pgMs: number; literalsMs: number }> = {};
for (const [name, params] of Object.entries(cases)) {
  const pgMs = timed(() => params.map((p) => prepareValue(p)));
  const literalsMs = timed(() => withArrayLiterals(params).map((p) => prepareValue(p)));
  result[name] = { pgMs, literalsMs };
  console.log(
    `${name}: literals ${literalsMs.toFixed(3)} ms a statement, pg's own writing ${pgMs.toFixed(3)} ms (reference)`,
  );
}
emitResult('array-params', result);
