// Ingest throughput of the real fixtures (every JMA XML file once, through the pipeline the CLI uses:
// parse, classify, gzip, SHA-384, JSON conversion and projections, one transaction each, bus
// announcement; prepared in the bulk-ingest workers) into a fresh database, side by side with the
// same telegrams stored without conversion (prepare + store + announce, on one thread, as every
// live source ingests), alternating so machine noise hits both alike. Each counted run follows an
// uncounted one of the same pipeline, so that neither pays for the garbage the other left. Five
// warm-up runs of each are not counted either: first use compiles code and schemas and starts the
// workers, and V8 goes on optimising the converters of the rarer types for a few thousand
// telegrams (a converter runs only for its own types), in each thread that runs them; a long
// ingest runs in that optimised state nearly all the time. Besides telegrams/s, the CPU time of
// this process (every thread) per run shows what the conversion costs in all.
// Usage: node --import tsx bench/ingest.ts [runs]
//   embedded PGlite by default; NAMAZU_BENCH_DATABASE_URL=postgres://… (a server; a fresh database
//   is created and dropped per run) for PostgreSQL.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createMemoryBus } from '../src/bus/memory.ts';
import { migrate } from '../src/db/migrate.ts';
import { openDb } from '../src/db/open.ts';
import type { Db } from '../src/db/types.ts';
import { channels } from '../src/bus/types.ts';
import { createPreparePools, ingestInOrder } from '../src/telegrams/ingest.ts';
import { prepareTelegram } from '../src/telegrams/prepare.ts';
import { storeTelegram } from '../src/telegrams/store.ts';
import { createTestDatabase } from '../test/support/database.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const runs = Number(process.argv[2] ?? 3);
const serverUrl = process.env.NAMAZU_BENCH_DATABASE_URL ?? null;

const telegrams = fixtureIndex().map((entry) => ({
  raw: readFileSync(entry.path),
  hints: { fileName: entry.file, receivedTime: 0 },
}));
const bytes = telegrams.reduce((n, t) => n + t.raw.length, 0);

async function freshDb(): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (!serverUrl) {
    const t = await createTestDatabase();
    const db = await openDb({ databaseUrl: null, dataDir: t.dataDir, poolSize: 1 });
    return { db, drop: async () => (await db.close(), await t.drop()) };
  }
  const name = `namazu_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: url.toString(), dataDir: '', poolSize: 4 });
  await migrate(db);
  return {
    db,
    drop: async () => {
      await db.close();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

type Pipeline = (db: Db, bus: ReturnType<typeof createMemoryBus>) => Promise<void>;

// One pool of prepare workers for every run, as a server keeps its own (AppContext.preparePools):
// without it each run would make a pool of its own and count its workers' start.
const preparePools = createPreparePools();

const withConversion: Pipeline = (db, bus) =>
  ingestInOrder(
    { db, bus, preparePools },
    telegrams.map((t) => ({ raw: t.raw, hints: { ...t.hints, receivedTime: Date.now() } })),
    (outcome) => {
      if (!outcome.ok) throw new Error(outcome.reason);
    },
  );

const withoutConversion: Pipeline = async (db, bus) => {
  for (const t of telegrams) {
    const prepared = prepareTelegram(t.raw, { ...t.hints, receivedTime: Date.now() });
    if (!prepared.ok) throw new Error(prepared.reason);
    const stored = await storeTelegram(db, prepared.telegram);
    await bus.publish(channels.telegram, JSON.stringify({ serial: stored.serial }));
  }
};

/** Telegrams/s of one run, and the CPU seconds this process spent in it. */
async function rate(pipeline: Pipeline): Promise<{ rate: number; cpu: number }> {
  const { db, drop } = await freshDb();
  const bus = createMemoryBus();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await pipeline(db, bus);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await bus.close();
  await drop();
  return { rate: telegrams.length / seconds, cpu: (cpu.user + cpu.system) / 1e6 };
}

const WARM_UP_RUNS = 5;
for (let run = 0; run < WARM_UP_RUNS; run++) {
  await rate(withoutConversion);
  await rate(withConversion);
}
const rates = { with: [] as number[], without: [] as number[] };
const cpus = { with: [] as number[], without: [] as number[] };
for (let run = 0; run < runs; run++) {
  for (const [name, pipeline] of [
    ['without', withoutConversion],
    ['with', withConversion],
  ] as const) {
    // The uncounted run collects what the other pipeline's run left (the runs share one heap).
    await rate(pipeline);
    const r = await rate(pipeline);
    rates[name].push(r.rate);
    cpus[name].push(r.cpu);
  }
}
const engine = serverUrl ? 'PostgreSQL' : 'PGlite';
console.log(
  `${engine}: ${telegrams.length} telegrams (${(bytes / 1e6).toFixed(1)} MB) per run, ${runs} runs each`,
);
for (const name of ['with', 'without'] as const) {
  const sorted = [...rates[name]].sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(7)} conversion: median ${median(rates[name]).toFixed(0)} telegrams/s (min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}); CPU ${median(cpus[name]).toFixed(2)} s per run`,
  );
}
emitResult('ingest', {
  engine,
  telegrams: telegrams.length,
  runs,
  withConversion: median(rates.with),
  withoutConversion: median(rates.without),
});
await Promise.all([preparePools.bulk.close(), preparePools.live.close()]);
console.log(
  `  ratio with/without: ${(median(rates.with) / median(rates.without)).toFixed(2)} (target ≥ 0.80)`,
);
