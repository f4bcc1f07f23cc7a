// Fills a database with synthetic telegrams for list benchmarks: each row copies the metadata
// (class, type, office, Control/Head) of one of the real fixtures in turn, with its own serial,
// id, reception time (one second apart, ending now) and a short stub body (lists never read bodies).
// Usage: node --import tsx bench/gen-telegrams.ts [count] (default 1,000,000)
// Target: NAMAZU_DATABASE_URL (PostgreSQL) or NAMAZU_DATA_DIR (embedded), migrated first.
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/db/migrate.ts';
import { openDb } from '../src/db/open.ts';
import { prepareTelegram } from '../src/telegrams/prepare.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';

const count = Number(process.argv[2] ?? 1_000_000);
const BATCH = 100_000;
const config = loadConfig(process.env);
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
await migrate(db);

const templates = fixtureIndex().flatMap((entry) => {
  const raw = readFileSync(entry.path);
  const hints = { fileName: entry.file, receivedTime: Date.now() };
  const r = prepareTelegram(raw, hints);
  const p = r.ok ? r : prepareTelegram(raw, { ...hints, author: 'JPXX' });
  return p.ok ? [p.telegram] : [];
});
await db.query('DROP TABLE IF EXISTS bench_templates');
await db.query(
  `CREATE TABLE bench_templates (k int PRIMARY KEY, classification text, type text, author text, designation text,
     test boolean, format text, xml_report jsonb, compression text, encoding text)`,
);
for (const [k, t] of templates.entries()) {
  await db.query('INSERT INTO bench_templates VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
    k,
    t.classification,
    t.head.type,
    t.head.author,
    t.head.designation,
    t.head.test,
    t.format,
    JSON.stringify(t.xmlReport),
    t.compression,
    t.encoding,
  ]);
}

const start = (await db.query<{ n: number }>('SELECT coalesce(max(serial), 0)::int AS n FROM telegrams'))[0]!
  .n;
const t0 = performance.now();
for (let done = 0; done < count; done += BATCH) {
  const n = Math.min(BATCH, count - done);
  await db.query(
    `INSERT INTO telegrams (id, raw_digest, classification, type, author, head_time, designation, test, format,
       received_time, xml_report, compression, encoding, body)
     SELECT encode(sha384(('bench-body-' || g)::bytea), 'hex'), encode(sha384(('bench-raw-' || g)::bytea), 'hex'),
       t.classification, t.type, t.author, date_trunc('minute', now() - make_interval(secs => $3 - g)), t.designation,
       t.test, t.format, now() - make_interval(secs => $3 - g), t.xml_report, t.compression, t.encoding,
       '\\x1f8b0800000000000003'::bytea
     FROM generate_series($1::int, $2::int) AS g JOIN bench_templates t ON t.k = g % $4`,
    [start + done + 1, start + done + n, start + count, templates.length],
  );
  process.stdout.write(`\r${done + n} / ${count} telegrams`);
}
await db.query('DROP TABLE bench_templates');
await db.query('ANALYZE telegrams');
console.log(`\ninserted ${count} telegrams in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await db.close();
