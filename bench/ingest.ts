// Ingest throughput of the real fixtures (every JMA XML file once, through the pipeline the CLI uses:
// parse, classify, gzip, SHA-384, one transaction each, bus announcement) into a fresh database.
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
import { ingestInOrder } from '../src/telegrams/ingest.ts';
import { createTestDatabase } from '../test/support/database.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';

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

const rates: number[] = [];
for (let run = 0; run < runs; run++) {
  const { db, drop } = await freshDb();
  const bus = createMemoryBus();
  const t0 = performance.now();
  await ingestInOrder(
    { db, bus },
    telegrams.map((t) => ({ raw: t.raw, hints: { ...t.hints, receivedTime: Date.now() } })),
    (outcome) => {
      if (!outcome.ok) throw new Error(outcome.reason);
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  rates.push(telegrams.length / seconds);
  await bus.close();
  await drop();
}
rates.sort((a, b) => a - b);
console.log(
  `${serverUrl ? 'PostgreSQL' : 'PGlite'}: ${telegrams.length} telegrams (${(bytes / 1e6).toFixed(1)} MB) per run, ${runs} runs: ` +
    `median ${rates[Math.floor(runs / 2)]!.toFixed(0)} telegrams/s (min ${rates[0]!.toFixed(0)}, max ${rates[runs - 1]!.toFixed(0)})`,
);
