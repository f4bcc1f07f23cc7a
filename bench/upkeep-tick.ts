// The store's work of one process at each ping tick (src/realtime/upkeep.ts, docs/realtime.md "The
// connection limit") for a large account: one account with a connection limit of --sessions and as
// many open sessions, alive, spread over --processes; this process holds its share. Times each of
// the tick's statements (the missed changes, the pongs recorded, the cut-off asked again) over
// --ticks ticks, after one tick that finds the account (a process checks an account it holds first).
// Between two of its pong recordings the other processes record theirs, as in a deployment (the
// pages hold the row versions a deployment's do). On PostgreSQL each statement's WAL is measured too.
// Usage: node --import tsx bench/upkeep-tick.ts [--sessions 100000] [--processes 10] [--ticks 20]
//   embedded PGlite by default; NAMAZU_BENCH_DATABASE_URL=postgres://… for PostgreSQL (a fresh
//   database is created and dropped).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { planByClassification } from '../src/accounts/plans.ts';
import { migrate } from '../src/db/migrate.ts';
import { openDb } from '../src/db/open.ts';
import type { Db } from '../src/db/types.ts';
import { recordAlive } from '../src/sessions/process-liveness.ts';
import { LimitChecks, cutOffSessions, missedChanges, recordPings } from '../src/sessions/socket-sessions.ts';
import { createBenchDatabase } from './bench-database.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100000' },
    processes: { type: 'string', default: '10' },
    ticks: { type: 'string', default: '20' },
  },
});
const SESSIONS = Number(args.sessions);
const PROCESSES = Number(args.processes);
const TICKS = Number(args.ticks);

const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL;
const dataDir = adminUrl ? null : mkdtempSync(join(tmpdir(), 'namazu-bench-upkeep-'));
const bench = adminUrl ? await createBenchDatabase(adminUrl, 'namazu_bench_upkeep', 'bench') : null;
const db: Db = bench?.db ?? (await openDb({ databaseUrl: null, dataDir: dataDir!, poolSize: 1 }));
if (!bench) await migrate(db);
const engine = adminUrl ? 'postgres' : 'pglite';

try {
  const processIds = Array.from({ length: PROCESSES }, (_, i) => `bench-process-${i}`);
  /** The process this bench is. */
  const self = processIds[0]!;
  for (const id of processIds) await recordAlive(db, id);
  const [account] = await db.query<{ id: number }>(
    `INSERT INTO accounts (email, password_hash, connection_limit) VALUES ('bench@example.com', 'x', $1)
     RETURNING id`,
    [SESSIONS],
  );
  await db.query(`INSERT INTO contracts (account_id, plan_id) VALUES ($1, $2)`, [
    account!.id,
    planByClassification('telegram.earthquake')!.id,
  ]);
  // The sessions as opened: 'open', their process named, a classification contracted.
  await db.query(
    `INSERT INTO socket_sessions (account_id, ticket_digest, ticket_hint, classifications, test,
       format_mode, status, start_at, expires_at, ping_at, process_id)
     SELECT $1, 'd' || i, 'h', ARRAY['telegram.earthquake'], 'no', 'raw', 'open',
       now() - make_interval(secs => $2 - i), now(), now(), ($3::text[])[1 + i % $4]
     FROM generate_series(1, $2) AS i`,
    [account!.id, SESSIONS, processIds, PROCESSES],
  );
  await db.exec('ANALYZE');
  /** The sessions each process holds. */
  const heldBy = new Map<string, number[]>(processIds.map((id) => [id, []]));
  for (const r of await db.query<{ id: number; process_id: string }>(
    `SELECT id, process_id FROM socket_sessions`,
  ))
    heldBy.get(r.process_id)!.push(Number(r.id));
  const held = heldBy.get(self)!;
  /** The other processes' pong recordings between two of this one's (untimed). */
  const othersTick = async () => {
    for (const [id, ids] of heldBy) if (id !== self) await recordPings(db, ids, Date.now());
  };
  /** Where the WAL is written now: PostgreSQL only (the embedded engine's is not measured). */
  const walPosition = async () =>
    adminUrl
      ? (await db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))[0]!.lsn
      : null;
  /** The WAL bytes written since `from`. */
  const walSince = async (from: string | null) =>
    from === null
      ? null
      : Number(
          (
            await db.query<{ bytes: string }>(
              `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS bytes`,
              [from],
            )
          )[0]!.bytes,
        );
  const checks = new LimitChecks();
  const timed = async (run: () => Promise<unknown>, between: () => Promise<unknown> = async () => {}) => {
    const ms: number[] = [];
    const wal: number[] = [];
    for (let i = 0; i < TICKS; i++) {
      await recordAlive(db, self);
      const from = await walPosition();
      const start = performance.now();
      await run();
      ms.push(performance.now() - start);
      const bytes = await walSince(from);
      if (bytes !== null) wal.push(bytes);
      await between();
    }
    return {
      medianMs: median(ms),
      maxMs: Math.max(...ms),
      ...(wal.length ? { medianWalBytes: median(wal) } : {}),
    };
  };
  const firstStart = performance.now();
  const first = await missedChanges(db, held, checks);
  const firstMs = performance.now() - firstStart;
  if (first.overLimit.length + first.contractsEnded.length > 0)
    throw new Error('the account is not within its terms');
  const results = {
    missedChangesFirst: { ms: firstMs },
    missedChanges: await timed(() => missedChanges(db, held, checks)),
    recordPings: await timed(() => recordPings(db, held, Date.now()), othersTick),
    cutOffSessions: await timed(() => cutOffSessions(db, held)),
  };
  console.log(
    `${engine}: ${SESSIONS} open sessions of one account, ${held.length} held by this process, ${TICKS} ticks`,
  );
  for (const [name, r] of Object.entries(results)) console.log(`  ${name}: ${JSON.stringify(r)}`);
  emitResult('upkeep-tick', { engine, sessions: SESSIONS, held: held.length, ...results });
} finally {
  if (bench) await bench.drop();
  else {
    await db.close();
    rmSync(dataDir!, { recursive: true, force: true });
  }
}
