// The time to write a statement's lists of numbers for the database: each driver's own writing of a
// JavaScript array (the references: what every statement did before) beside the literals written
// by src/db/array-literal.js, for the lists the service passes — a ping tick's session ids
// (src/sessions/socket-sessions.ts) and a telegram's webhook queue (src/webhooks/deliveries.ts).
// node-postgres writes on the event loop (src/db/postgres.ts); PGlite in the embedded database's
// thread (src/db/pglite-worker.js), where every statement waits behind it.
// Each case is timed over --iterations calls after as many to warm up, --rounds times; medians printed.
// Usage: node --import tsx bench/array-params.ts [--iterations 200] [--rounds 5]
import { PGlite, types } from '@electric-sql/pglite';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { numberListLiteral } from '../src/db/array-literal.js';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

// What pg runs on each parameter before it writes the Bind message (pg/lib/query.js).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};
// PGlite's serializers by parameter type, as the embedded thread looks them up.
const pglite = await PGlite.create();
const serializers = pglite.serializers as Record<number, (value: unknown) => string>;
const INT8_ARRAY = 1016;
const INT2_ARRAY = 1005;
const BOOL_ARRAY = 1000;

const { values: args } = parseArgs({
  options: { iterations: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } },
});
const ITERATIONS = Number(args.iterations);
const ROUNDS = Number(args.rounds);

const ids = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
/** Each case's parameters, with the type the statement gives each. */
const cases: Record<string, [unknown, number][]> = {
  // One process's 10,000 sessions of a large account, recorded alive at each ping tick.
  pingTickIds: [
    [ids(10_000, 4_000_000), INT8_ARRAY],
    [new Date(), types.TIMESTAMPTZ],
  ],
  // A telegram queued for 1,000 webhook subscriptions: ids, serial, priority, claimed.
  webhookQueue: [
    [ids(1_000, 1), INT8_ARRAY],
    [Array<number>(1_000).fill(123_456), INT8_ARRAY],
    [Array<number>(1_000).fill(0), INT2_ARRAY],
    [Array.from({ length: 1_000 }, (_, i) => i % 3 === 0), BOOL_ARRAY],
    [30_000, types.INT4],
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

const pgliteWrites = (value: unknown, type: number) => serializers[type]?.(value) ?? String(value);
const result: Record<string, Record<string, number>> = {};
for (const [name, params] of Object.entries(cases)) {
  const figures = {
    pgMs: timed(() => params.map(([p]) => prepareValue(p))),
    pgLiteralsMs: timed(() => params.map(([p]) => prepareValue(numberListLiteral(p) ?? p))),
    pgliteMs: timed(() => params.map(([p, type]) => pgliteWrites(p, type))),
    pgliteLiteralsMs: timed(() => params.map(([p, type]) => numberListLiteral(p) ?? pgliteWrites(p, type))),
  };
  result[name] = figures;
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  console.log(`${name}, a statement's parameters written:`);
  console.log(
    `  PostgreSQL: literals ${ms(figures.pgLiteralsMs)}, pg's own writing ${ms(figures.pgMs)} (reference)`,
  );
  console.log(
    `  PGlite:     literals ${ms(figures.pgliteLiteralsMs)}, PGlite's own ${ms(figures.pgliteMs)} (reference)`,
  );
}
await pglite.close();
emitResult('array-params', result);
