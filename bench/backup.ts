// `namazu backup` of a large database while the server serves (docs/operations.md, "Backup and
// restore"): how long the backup takes, and the server's request latency during it beside the same
// load without it (the reference), in the same run.
// Usage: node --import tsx bench/backup.ts [count] [seconds]   (default 100,000 telegrams, 10 s)
// Embedded database by default; PostgreSQL (pg_dump) with NAMAZU_BENCH_DATABASE_URL (a server on
// which a scratch database is created and dropped).
// Telegrams come from bench/gen-telegrams.ts; their bodies are then made 2 KiB of random bytes each,
// the median size of a gzip-compressed JMA telegram among the fixtures (1.9 KB), so the database is
// as large as real telegrams make it. The load: 4 clients fetching telegram bodies of random serials
// (a database read each) and first list pages, one after the other, as fast as they are answered.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { createAccount } from '../src/accounts/accounts.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import { addContract } from '../src/accounts/contracts.ts';
import { plans } from '../src/accounts/plans.ts';
import { classScope } from '../src/scopes.ts';
import { openDb } from '../src/db/open.ts';
import { loadPepper } from '../src/security/pepper.ts';
import { serve } from '../test/support/processes.ts';
import { BIN } from './namazu-bin.ts';
import { emitResult } from './result.ts';
import { percentile } from './stats.ts';

const count = Number(process.argv[2] ?? 100_000);
const seconds = Number(process.argv[3] ?? 10);
const CLIENTS = 4;
const BODY_BYTES = 2048;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;

function run(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return once(child, 'close').then(([code]) => {
    if (code !== 0) throw new Error(`${args.join(' ')} failed (${code}): ${err}`);
    return out;
  });
}

const work = mkdtempSync(join(tmpdir(), 'namazu-bench-backup-'));
const dataDir = join(work, 'data');
let databaseUrl: string | null = null;
const scratch = `namazu_bench_backup_${process.pid}`;
if (adminUrl) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${scratch}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${scratch}`;
  databaseUrl = u.toString();
}
const target: Record<string, string> = databaseUrl
  ? { NAMAZU_DATABASE_URL: databaseUrl }
  : { NAMAZU_DATA_DIR: dataDir };

try {
  const engine = databaseUrl ? 'postgres' : 'pglite';
  console.log(`${engine}: generating ${count} telegrams…`);
  let t = performance.now();
  await run(['--import', 'tsx', 'bench/gen-telegrams.ts', String(count)], target);
  const db = await openDb({ databaseUrl, dataDir, poolSize: 2 });
  let key: string;
  try {
    // Real-sized bodies, stored gzip-compressed as ingest stores them: random bytes do not compress.
    const pool = Array.from({ length: 256 }, () => gzipSync(randomBytes(BODY_BYTES), { level: 1 }));
    const STEP = 2000;
    for (let from = 1; from <= count; from += STEP) {
      await db.query(
        `UPDATE telegrams SET body = ($3::bytea[])[1 + serial % 256]
          WHERE serial BETWEEN $1 AND $2`,
        [from, from + STEP - 1, pool],
      );
    }
    await db.query('VACUUM ANALYZE telegrams');
    const pepper = await loadPepper(db, null);
    const account = await createAccount(db, { email: 'bench@example.test', password: 'password-1' });
    const delivering = plans.filter((p) => p.delivers);
    for (const p of delivering) await addContract(db, account.id, p.classification);
    const scopes = [
      'telegram.list',
      'telegram.data',
      ...new Set(delivering.map((p) => classScope(p.classification))),
    ];
    key = (await createApiKey(db, pepper, account.id, scopes)).key;
    const [size] = await db.query<{ bytes: number }>(
      'SELECT pg_database_size(current_database())::bigint AS bytes',
    );
    console.log(
      `database ready in ${((performance.now() - t) / 1000).toFixed(0)} s: ${(size!.bytes / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    await db.close();
  }

  const server = await serve(target, { args: databaseUrl ? ['--data-dir', dataDir] : [] });
  const headers = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  const bodyUrl = (serial: number) =>
    `${server.url}/v1/${createHash('sha384').update(`bench-body-${serial}`).digest('hex')}`;

  /** Requests from CLIENTS clients until `until` resolves; the latency of each, in ms. */
  async function load(until: Promise<unknown>): Promise<{ ms: number[]; errors: number }> {
    let done = false;
    void until.finally(() => (done = true));
    const ms: number[] = [];
    let errors = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; !done; i++) {
          const url =
            (i + c) % 2 === 0 ? bodyUrl(1 + Math.floor(Math.random() * count)) : `${server.url}/v2/telegram`;
          const s = performance.now();
          const res = await fetch(url, { headers });
          await res.arrayBuffer();
          ms.push(performance.now() - s);
          if (res.status !== 200) errors++;
        }
      }),
    );
    return { ms, errors };
  }

  await load(new Promise((r) => setTimeout(r, 5000))); // warm-up
  const reference = await load(new Promise((r) => setTimeout(r, seconds * 1000)));
  const file = join(work, 'namazu.backup');
  t = performance.now();
  const backup = run([BIN, 'backup', file, ...(databaseUrl ? [] : ['--data-dir', dataDir])], {
    ...target,
    NAMAZU_DEMO: '0',
  });
  const during = await load(backup);
  const result = JSON.parse(await backup) as { bytes: number; seconds: number };
  const wall = (performance.now() - t) / 1000;
  // The same load again once the backup is done: the reference also with the caches as warm.
  const after = await load(new Promise((r) => setTimeout(r, seconds * 1000)));
  await server.stop();

  const row = (name: string, r: { ms: number[]; errors: number }) =>
    `| ${name} | ${r.ms.length} | ${percentile(r.ms, 50).toFixed(1)} | ${percentile(r.ms, 99).toFixed(1)} | ${r.errors} |`;
  console.log(`\nbackup of ${count} telegrams (${engine}): ${result.seconds.toFixed(1)} s in the command`);
  console.log(`(${wall.toFixed(1)} s with the CLI's start), file ${(result.bytes / 2 ** 20).toFixed(0)} MiB`);
  console.log(`\n| load | requests | p50 ms | p99 ms | errors |\n|---|---|---|---|---|`);
  console.log(row('without backup, before it (reference)', reference));
  console.log(row('during backup', during));
  console.log(row('without backup, after it (reference)', after));
  emitResult('backup', {
    engine,
    telegrams: count,
    backupSeconds: result.seconds,
    backupBytes: result.bytes,
    p99Ms: percentile(during.ms, 99),
    p99ReferenceMs: percentile(reference.ms, 99),
    p99AfterMs: percentile(after.ms, 99),
    errors: during.errors,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
  if (adminUrl) {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
    await c.end();
  }
}
