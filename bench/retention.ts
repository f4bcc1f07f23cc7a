// Retention under load (docs/operations.md "Retention"): a year of telegrams at JMA's daily volume
// (scaled by --scale; the estimate per classification is VOLUME below), each row a copy of a real
// fixture of its classification with its real stored body (gzip XML) and, where a converter
// exists, its JSON conversion. Then one pruning run with the default settings while early warnings
// are ingested every 50 ms and delivered to a WebSocket client: delivery latency (ingest call →
// message received) and event-loop stalls, beside the same load without pruning in the same run.
// Store size per day of telegrams before and after pruning (tables, and the data directory on the
// embedded engine).
// Usage: node --import tsx bench/retention.ts [--days 365] [--scale 0.1] [--baseline-s 20] [--batch-ms N]
//   embedded PGlite by default; NAMAZU_BENCH_DATABASE_URL=postgres://… for PostgreSQL (a fresh
//   database is created and dropped).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { ManualClock } from '../src/clock.ts';
import { DEFAULT_RETENTION_DAYS } from '../src/config.ts';
import type { Db, SqlParam } from '../src/db/types.ts';
import { Pruner } from '../src/retention/pruner.ts';
import { ingestTelegram } from '../src/telegrams/ingest.ts';
import { prepareConversion, prepareTelegram } from '../src/telegrams/prepare.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';
import { emitResult } from './result.ts';
import { percentile } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '365' },
    scale: { type: 'string', default: '0.1' },
    'baseline-s': { type: 'string', default: '20' },
    /** NAMAZU_RETENTION_BATCH_MS: 0 = the engine's default. */
    'batch-ms': { type: 'string', default: '0' },
  },
});
const DAYS = Number(args.days);
const SCALE = Number(args.scale);
const BASELINE_MS = Number(args['baseline-s']) * 1000;
const DAY = 86_400_000;

/**
 * XML telegrams a day, by classification: an estimate from JMA's publication schedules (see
 * docs/operations.md "Retention", "Volume"): forecasts for 58 areas three times a day plus weekly
 * and warning-possibility forecasts; warnings and weather information per area as they change;
 * marine forecasts and warnings every six hours for 12 areas; the hourly EEW test telegram.
 */
const VOLUME: Record<string, number> = {
  'eew.forecast': 24,
  'telegram.earthquake': 40,
  'telegram.volcano': 100,
  'telegram.weather': 2000,
  'telegram.forecast': 500,
  'telegram.scheduled': 120,
  'telegram.observation': 10,
};

if (process.env.NAMAZU_BENCH_DATABASE_URL)
  process.env.NAMAZU_TEST_DATABASE_URL = process.env.NAMAZU_BENCH_DATABASE_URL;
else delete process.env.NAMAZU_TEST_DATABASE_URL;
const { startTestServer } = await import('../test/support/server.ts');

const END = Date.parse('2026-01-01T00:00:00.000Z');
const START = END - DAYS * DAY;
const clock = new ManualClock(END);
const server = await startTestServer({ clock, config: { retentionIntervalMs: 0 } });
const db: Db = server.ctx.db;
const engine = db.engine;

// ---- templates: every fixture prepared as ingest stores it, with its conversion
interface Template {
  classification: string;
  type: string;
  author: string;
  format: string;
  compression: string | null;
  encoding: string;
  xmlReport: unknown;
  body: Buffer;
  json: { body: Buffer; schemaType: string; schemaVersion: string } | null;
}
const templates: Template[] = [];
for (const entry of fixtureIndex()) {
  const raw = readFileSync(entry.path);
  const p = prepareTelegram(raw, { fileName: entry.file, receivedTime: END });
  if (!p.ok || !(p.telegram.classification in VOLUME)) continue;
  const t = p.telegram;
  const c = prepareConversion(t, raw.toString('utf8'));
  templates.push({
    classification: t.classification,
    type: t.head.type,
    author: t.head.author,
    format: t.format,
    compression: t.compression,
    encoding: t.encoding,
    xmlReport: t.xmlReport,
    body: t.body,
    json:
      c && c.ok
        ? { body: c.telegram.body, schemaType: c.schema.type, schemaVersion: c.schema.version }
        : null,
  });
}
await db.exec(`CREATE TABLE bench_templates (classification text, k int, type text, author text, format text,
  compression text, encoding text, xml_report jsonb, body bytea, json_body bytea, schema_type text, schema_version text)`);
const perClass = new Map<string, number>();
for (const t of templates) {
  const k = perClass.get(t.classification) ?? 0;
  perClass.set(t.classification, k + 1);
  await db.query(
    `INSERT INTO bench_templates VALUES ($1, $2, $3, $4, $5, $6, $7, $8, decode($9, 'base64'), decode($10, 'base64'), $11, $12)`,
    [
      t.classification,
      k,
      t.type,
      t.author,
      t.format,
      t.compression,
      t.encoding,
      t.xmlReport === null ? null : JSON.stringify(t.xmlReport),
      t.body.toString('base64'),
      t.json?.body.toString('base64') ?? null,
      t.json?.schemaType ?? null,
      t.json?.schemaVersion ?? null,
    ],
  );
}

// ---- a year of telegrams, month by month, each classification spread evenly over the day
const fillStarted = performance.now();
let rows = 0;
const MONTH_DAYS = 30;
for (let day = 0; day < DAYS; day += MONTH_DAYS) {
  const days = Math.min(MONTH_DAYS, DAYS - day);
  for (const [classification, daily] of Object.entries(VOLUME)) {
    const n = Math.max(1, Math.round(daily * SCALE));
    const count = perClass.get(classification)!;
    const first = day * n;
    const last = (day + days) * n - 1;
    const inserted = await db.query<{ n: number }>(
      `WITH x AS (
         INSERT INTO telegrams (id, raw_digest, classification, type, author, head_time, test, format,
           received_time, xml_report, compression, encoding, body)
         SELECT encode(sha384(('x-' || $1 || g)::bytea), 'hex'), encode(sha384(('r-' || $1 || g)::bytea), 'hex'),
           t.classification, t.type, t.author, $4::timestamptz + make_interval(secs => g * $5::float8), false, t.format,
           $4::timestamptz + make_interval(secs => g * $5::float8), t.xml_report, t.compression, t.encoding, t.body
         FROM generate_series($2::int, $3::int) g JOIN bench_templates t ON t.classification = $1 AND t.k = g % $6
         ORDER BY g
         RETURNING 1
       ), j AS (
         INSERT INTO telegrams (id, raw_digest, classification, type, author, head_time, test, format,
           received_time, compression, encoding, body, original_id, schema_type, schema_version)
         SELECT encode(sha384(('j-' || $1 || g)::bytea), 'hex'), encode(sha384(('jr-' || $1 || g)::bytea), 'hex'),
           t.classification, t.type, t.author, $4::timestamptz + make_interval(secs => g * $5::float8), false, 'json',
           $4::timestamptz + make_interval(secs => g * $5::float8), 'gzip', 'base64', t.json_body,
           encode(sha384(('x-' || $1 || g)::bytea), 'hex'), t.schema_type, t.schema_version
         FROM generate_series($2::int, $3::int) g JOIN bench_templates t ON t.classification = $1 AND t.k = g % $6
         WHERE t.json_body IS NOT NULL
         ORDER BY g
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM x)::int8 + (SELECT count(*) FROM j)::int8 AS n`,
      [classification, first, last, new Date(START), DAY / 1000 / n, count],
    );
    rows += inserted[0]!.n;
  }
  process.stdout.write(`\rfilled ${day + days} / ${DAYS} days, ${rows} rows`);
}
await db.exec('DROP TABLE bench_templates');
// The rows were not announced: the telegram cache (and the delivery behind it) reads them now, so
// that the measurement does not start behind a year of backlog.
await server.ctx.telegrams.refresh();
await db.exec('VACUUM ANALYZE telegrams');
console.log(`\nfilled in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);

async function storeBytes(): Promise<{ tables: number; live: number; dir: number | null }> {
  const [r] = await db.query<{ total: number }>(
    `SELECT sum(pg_total_relation_size(c.oid))::int8 AS total
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  // What the kept rows hold: bodies and Control/Head (the rest of a row is under 200 bytes).
  const [l] = await db.query<{ live: number }>(
    `SELECT (sum(octet_length(body)) + coalesce(sum(octet_length(xml_report::text)), 0))::int8 AS live FROM telegrams`,
  );
  const dir =
    engine === 'pglite'
      ? Number(
          execFileSync('du', ['-sb', `${server.database.dataDir}/pg/base`], { encoding: 'utf8' }).split(
            '\t',
          )[0],
        )
      : null;
  return { tables: r!.total, live: l!.live, dir };
}
const perRealDay = (bytes: number) => bytes / DAYS / SCALE;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const sizeBefore = await storeBytes();
const perClassMb = Object.fromEntries(
  (
    await db.query<{ classification: string; bytes: number }>(
      'SELECT classification, sum(octet_length(body))::int8 AS bytes FROM telegrams GROUP BY classification ORDER BY 2 DESC',
    )
  ).map((r) => [r.classification, +mb(perRealDay(r.bytes))]),
);

// ---- load: early warnings ingested every 50 ms, delivered to one WebSocket client
const { account } = await server.createAccount({ contracts: ['eew.forecast'] });
const key = await server.createApiKey(account.id, ['socket.start', 'eew.get.forecast']);
const started = await fetch(`${server.url}/v2/socket`, {
  method: 'POST',
  headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  body: JSON.stringify({ classifications: ['eew.forecast'] }),
});
const { websocket } = (await started.json()) as { websocket: { url: string } };
const ws = new WebSocket(websocket.url, ['service.v2'], { perMessageDeflate: false });
/** Arrival time of each telegram delivered, by id. */
const arrivals = new Map<string, number>();
await new Promise<void>((resolve, reject) => {
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { type: string; id?: string };
    if (m.type === 'start') resolve();
    if (m.type === 'data') arrivals.set(m.id!, performance.now());
  });
  ws.on('error', reject);
});

const eew = fixtureIndex().find((e) => e.file === '77_01_01_240613_VXSE45.xml')!;
const eewRaw = readFileSync(eew.path, 'utf8');
let sequence = 0;

/** Ingests one unique early warning every 50 ms until `until` resolves; delivery latencies in ms. */
async function underLoad(until: Promise<unknown>): Promise<{ latencies: number[]; stalls: number[] }> {
  let done = false;
  void until.finally(() => (done = true));
  const stalls: number[] = [];
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    stalls.push(now - last - 1);
    last = now;
  }, 1);
  const sent: { id: string; at: number }[] = [];
  while (!done) {
    const raw = Buffer.from(eewRaw.replace('</Report>', `</Report><!-- ${++sequence} -->`));
    const at = performance.now();
    const outcome = await ingestTelegram(server.ctx, raw, { fileName: eew.file, receivedTime: clock.now() });
    if (!outcome.ok || outcome.stored.duplicate) throw new Error('early warning not stored');
    sent.push({ id: outcome.stored.id, at });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await until;
  const deadline = Date.now() + 30_000;
  while (sent.some((t) => !arrivals.has(t.id)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  clearInterval(probe);
  const lost = sent.filter((t) => !arrivals.has(t.id)).length;
  if (lost > 0) throw new Error(`${lost} early warnings not delivered within 30 s`);
  return { latencies: sent.map((t) => arrivals.get(t.id)! - t.at), stalls };
}

// The year was written behind the server's back: its real-time delivery reads through all of it (in
// serial order; the client takes none of it) before it reaches anything ingested later. That read is
// not what is measured: one early warning, delivered once it is done, marks its end.
{
  const t = performance.now();
  const raw = Buffer.from(eewRaw.replace('</Report>', `</Report><!-- ${++sequence} -->`));
  const outcome = await ingestTelegram(server.ctx, raw, { fileName: eew.file, receivedTime: clock.now() });
  if (!outcome.ok) throw new Error('early warning not stored');
  while (!arrivals.has(outcome.stored.id)) await new Promise((resolve) => setTimeout(resolve, 100));
  console.log(`delivery read through the year in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
// Warm-up (not counted): the first ingests compile the parser, the converter and the schema checks.
await underLoad(new Promise((resolve) => setTimeout(resolve, 3000)));
const baseline = await underLoad(new Promise((resolve) => setTimeout(resolve, BASELINE_MS)));

// Every statement of pruning, timed: delete batches (on PostgreSQL one transaction each, db.tx; on
// the embedded engine one statement, db.query) and VACUUMs (db.exec). On the embedded engine each
// holds the database's only connection for as long as it runs.
interface Timed {
  batches: number[];
  vacuums: number[];
}
let timed: Timed = { batches: [], vacuums: [] };
// Ingest runs statements and transactions too: a pruning batch deletes with a USING join.
const isPruning = (sql: string) => /DELETE FROM \w+ \w+ USING/.test(sql);
const tx = db.tx.bind(db);
db.tx = async (fn) => {
  const t = performance.now();
  let pruning = false;
  try {
    return await tx((q) =>
      fn({
        exec: (sql) => q.exec(sql),
        query: (sql, params) => {
          pruning ||= isPruning(sql);
          return q.query(sql, params);
        },
      }),
    );
  } finally {
    if (pruning) timed.batches.push(performance.now() - t);
  }
};
const query = db.query.bind(db);
db.query = async <T>(sql: string, params?: readonly SqlParam[]) => {
  const t = performance.now();
  try {
    return await query<T>(sql, params);
  } finally {
    if (isPruning(sql)) timed.batches.push(performance.now() - t);
  }
};
const exec = db.exec.bind(db);
db.exec = async (sql: string) => {
  const t = performance.now();
  await exec(sql);
  if (sql.startsWith('VACUUM')) timed.vacuums.push(performance.now() - t);
};
// The server's own pruner (its timer off) would take cut-offs from the server's clock, which
// also times WebSocket heartbeats: this one has a clock of its own, moved by the hour below.
const pruneClock = new ManualClock(END);
const pruner = new Pruner(
  { ...server.ctx, clock: pruneClock },
  { retentionDays: DEFAULT_RETENTION_DAYS, intervalMs: 0, batchMs: Number(args['batch-ms']) },
);

interface Phase {
  seconds: number;
  telegrams: number;
  batches: number;
  batchMaxMs: number;
  batchP99Ms: number;
  vacuums: number;
  vacuumSeconds: number;
  vacuumMaxMs: number;
  deliveryP50Ms: number;
  deliveryP99Ms: number;
  addedP99Ms: number;
  stallMaxMs: number;
  stallsOver20Ms: number;
}
/** Runs `work` under the early-warning load; what its statements took and what delivery saw. */
async function phase(work: () => Promise<number>): Promise<Phase> {
  timed = { batches: [], vacuums: [] };
  const t = performance.now();
  let telegrams = 0;
  const load = await underLoad(work().then((n) => (telegrams = n)));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    seconds: +((performance.now() - t) / 1000).toFixed(1),
    telegrams,
    batches: timed.batches.length,
    batchMaxMs: +Math.max(0, ...timed.batches).toFixed(1),
    batchP99Ms: +(percentile(timed.batches, 99) || 0).toFixed(1),
    vacuums: timed.vacuums.length,
    vacuumSeconds: +(sum(timed.vacuums) / 1000).toFixed(2),
    vacuumMaxMs: +Math.max(0, ...timed.vacuums).toFixed(1),
    deliveryP50Ms: +percentile(load.latencies, 50).toFixed(2),
    deliveryP99Ms: +percentile(load.latencies, 99).toFixed(2),
    addedP99Ms: +(percentile(load.latencies, 99) - percentile(baseline.latencies, 99)).toFixed(2),
    stallMaxMs: +load.stalls.reduce((a, b) => Math.max(a, b), 0).toFixed(1),
    stallsOver20Ms: load.stalls.filter((x) => x > 20).length,
  };
}
const show = (name: string, p: Phase) =>
  console.log(
    `${name}: ${p.telegrams} telegrams in ${p.seconds} s; ${p.batches} delete batches (longest ${p.batchMaxMs} ms, p99 ${p.batchP99Ms}), ` +
      `${p.vacuums} VACUUMs (${p.vacuumSeconds} s in all, the longest ${p.vacuumMaxMs} ms${engine === 'postgres' ? ', in the database server' : ''})\n` +
      `  EEW delivery p50 / p99 ${p.deliveryP50Ms} / ${p.deliveryP99Ms} ms, p99 added ${p.addedP99Ms} ms (target ≤ 5); ` +
      `event-loop stall max ${p.stallMaxMs} ms, ${p.stallsOver20Ms} over 20 ms (target 0)`,
  );
const deletedBy = (r: Awaited<ReturnType<typeof pruner.runOnce>>) =>
  Object.values(r.telegrams).reduce((a, b) => a + b, 0);

const base = {
  deliveryP50Ms: +percentile(baseline.latencies, 50).toFixed(2),
  deliveryP99Ms: +percentile(baseline.latencies, 99).toFixed(2),
  stallMaxMs: +baseline.stalls.reduce((a, b) => Math.max(a, b), 0).toFixed(1),
  stallsOver20Ms: baseline.stalls.filter((x) => x > 20).length,
};
console.log(`engine ${engine}, ${DAYS} days at ${SCALE} × the estimated daily volume (${rows} rows)`);
console.log(
  `without pruning: EEW delivery p50 / p99 ${base.deliveryP50Ms} / ${base.deliveryP99Ms} ms; event-loop stall max ${base.stallMaxMs} ms, ${base.stallsOver20Ms} over 20 ms`,
);
// 1. Catch-up: the first run over a year of telegrams (on PostgreSQL autovacuum may start meanwhile).
let report: Awaited<ReturnType<typeof pruner.runOnce>> | undefined;
const catchUp = await phase(async () => deletedBy((report = await pruner.runOnce())));
show('catch-up run (a year)', catchUp);
// 2. Embedded engine: its reclaim (the pruner leaves it to a quiet moment; here it is forced while
// the load goes on, to show what it costs whenever it runs).
const reclaim = engine === 'pglite' ? await phase(async () => (await pruner.reclaim(), 0)) : null;
if (reclaim) show('reclaim after it (VACUUM, embedded: forced under load)', reclaim);
const sizeAfter = await storeBytes();
// 3. Steady state: a day of hourly runs, each deleting the telegrams that expired in its hour.
const steady = await phase(async () => {
  let n = 0;
  for (let hour = 0; hour < 24; hour++) {
    pruneClock.advance(3_600_000);
    n += deletedBy(await pruner.runOnce());
  }
  return n;
});
show('steady state (24 hourly runs)', steady);
const steadyReclaim = engine === 'pglite' ? await phase(async () => (await pruner.reclaim(), 0)) : null;
if (steadyReclaim) show("reclaim after the day's runs (embedded: forced under load)", steadyReclaim);
ws.close();
await pruner.stop();

const deleted = deletedBy(report!);
const result = {
  engine,
  days: DAYS,
  scale: SCALE,
  rows,
  deleted,
  baseline: base,
  catchUp,
  reclaim,
  steady,
  steadyReclaim,
  storeMbPerRealDay: {
    before: +mb(perRealDay(sizeBefore.tables)),
    after: +mb(perRealDay(sizeAfter.tables)),
    liveBefore: +mb(perRealDay(sizeBefore.live)),
    liveAfter: +mb(perRealDay(sizeAfter.live)),
    ...(sizeBefore.dir !== null
      ? { dirBefore: +mb(perRealDay(sizeBefore.dir)), dirAfter: +mb(perRealDay(sizeAfter.dir!)) }
      : {}),
  },
};
console.log(
  `store per day of telegrams at the real volume (MB, tables with indexes and out-of-line values): before ${result.storeMbPerRealDay.before}, after pruning ${result.storeMbPerRealDay.after}` +
    (sizeBefore.dir !== null
      ? `; data directory (base/) before ${result.storeMbPerRealDay.dirBefore}, after ${result.storeMbPerRealDay.dirAfter}`
      : ''),
);
console.log(
  `bodies and Control/Head kept per day (MB): before ${result.storeMbPerRealDay.liveBefore}, after pruning ${result.storeMbPerRealDay.liveAfter}; files keep their size, the freed space is reused`,
);
console.log(`body MB per real day, by classification: ${JSON.stringify(perClassMb)}`);
console.log(`retention: ${JSON.stringify(DEFAULT_RETENTION_DAYS)}`);
emitResult('retention', result);
await server.close();
