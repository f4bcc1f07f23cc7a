// An attempt ends inside its claim's lease (docs/webhooks.md "Durability"): a claim grown old while
// its body was built (the database busy, as in a burst) goes back to the queue instead of posting, so
// that no other claimer, another process or this one's next claim, takes the delivery over while the
// post is under way. Real workers on the real database (PGlite, or PostgreSQL with
// NAMAZU_TEST_DATABASE_URL), real receivers on loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { PRIORITY_OTHER, claimDue } from '../../src/webhooks/deliveries.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { ingestFixtures } from '../support/data-api.ts';
import type { TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver, type Behaviour } from './receiver.ts';
import { queueOne, subscribingServer, testWorker, type TestWorker } from './worker-support.ts';

/** A short attempt and lease, in the production's proportions (time limit + 10 s there). */
const TIMEOUT_MS = 1000;
const LEASE_MS = 5000;
/** The worker's database is busy until this long after the claim: a whole attempt no longer fits. */
const BUSY_UNTIL_MS = 4800;
/** The receiver answers just before the attempt's time limit. */
const ANSWER_MS = 800;

const earthquake = () =>
  fixtureIndex().find(
    (e) => e.classification === 'telegram.earthquake' && e.status === '通常' && e.infoType === '発表',
  )!;

/**
 * The worker process's own database: on PostgreSQL a pool of one connection of its own, so that
 * holding it stalls that process only; PGlite has the one connection of the server's process.
 */
async function workerDb(server: TestServer): Promise<Db> {
  const { databaseUrl, dataDir } = server.database;
  return databaseUrl ? openDb({ databaseUrl, dataDir, poolSize: 1 }) : server.ctx.db;
}

/** Holds `db`'s connection in a transaction until `ms` have passed: its other statements wait. */
async function holdConnection(db: Db, ms: number): Promise<Promise<void>> {
  let began!: () => void;
  const holding = new Promise<void>((resolve) => (began = resolve));
  const held = db.tx(async (q) => {
    await q.query('SELECT 1');
    began();
    await sleep(ms);
  });
  await holding;
  return held;
}

/**
 * One delivery queued to a receiver that answers as `answer` says, claimed for a worker as the queuer
 * claims a first attempt, and handed to it while its database is busy until `BUSY_UNTIL_MS` after the
 * claim; `claimers` workers in all (processes of their own), each polling the queue.
 */
async function lateAttempt(answer: (server: TestServer) => Behaviour, claimers: number) {
  const { server, subscribe } = await subscribingServer({ webhookDelivery: false });
  const receiver = await startReceiver(answer(server));
  const db = await workerDb(server);
  const workers: TestWorker[] = [];
  const close = async () => {
    for (const w of workers) await w.stop();
    if (db !== server.ctx.db) await db.close();
    await server.close();
    await receiver.close();
  };
  const options = {
    concurrency: 4,
    earlyWarningSlots: 1,
    perHost: 4,
    leaseMs: LEASE_MS,
    timeoutMs: TIMEOUT_MS,
    // Each claims what is due every 100 ms: a delivery whose lease ended is taken over at once.
    pollMs: 100,
  };
  try {
    const id = await subscribe(receiver.url, ['telegram.earthquake']);
    const [serial] = await ingestFixtures(server, [earthquake()]);
    const deliveryId = await queueOne(server.ctx.db, id, serial!, PRIORITY_OTHER);
    const leasedFrom = performance.now();
    const claimed = await claimDue(db, 1, LEASE_MS, []);
    assert.deepEqual(
      claimed.map((d) => d.id),
      [deliveryId],
    );
    // Started once it is claimed: none of them takes it first. The others are processes of their
    // own (on PostgreSQL, with the server's pool).
    const a = testWorker(server, db, options);
    workers.push(a);
    for (let i = 1; i < claimers; i++) workers.push(testWorker(server, server.ctx.db, options));
    const busy = await holdConnection(db, BUSY_UNTIL_MS - (performance.now() - leasedFrom));
    a.worker.take(claimed, leasedFrom);
    await busy;
    return { receiver, server, deliveryId, workers, close };
  } catch (err) {
    await close();
    throw err;
  }
}

const delivered = (server: TestServer, id: number) =>
  waitFor(
    async () =>
      (
        await server.ctx.db.query<{ attempts: number }>(
          `SELECT attempts FROM webhook_deliveries WHERE id = $1 AND state = 'delivered'`,
          [id],
        )
      )[0],
    { timeout: 10_000, message: 'the delivery recorded delivered' },
  );

test('a claim grown old while its body was built goes back to the queue: the post comes under a fresh claim, with its whole time limit left', async () => {
  const leaseLeft: number[] = [];
  // The receiver notes how long the lease of the attempt it is answering has yet to run.
  const noteLease =
    (server: TestServer): Behaviour =>
    (req, res) => {
      server.ctx.db
        .query<{ ms: number }>(
          `SELECT (extract(epoch FROM lease_until - now()) * 1000)::float8 AS ms
           FROM webhook_deliveries WHERE message_id = $1`,
          [String(req.headers['webhook-id'])],
        )
        .then(([row]) => leaseLeft.push(row!.ms))
        .finally(() => res.writeHead(204).end());
    };
  const late = await lateAttempt(noteLease, 1);
  try {
    const { attempts } = await delivered(late.server, late.deliveryId);
    assert.equal(late.receiver.received.length, 1);
    assert.equal(leaseLeft.length, 1);
    assert.ok(
      leaseLeft[0]! >= TIMEOUT_MS,
      `posted with ${Math.round(leaseLeft[0]!)} ms of its lease left, less than its time limit`,
    );
    // The claim given back counts no attempt: the one post is the first.
    assert.equal(attempts, 1);
    assert.deepEqual(late.workers[0]!.errors, []);
  } finally {
    await late.close();
  }
});

test('a receiver answering just before the time limit gets a delivery once although its claim is old, another claimer polling the queue', async () => {
  const answerLate = (): Behaviour => (_req, res) => {
    setTimeout(() => res.writeHead(204).end(), ANSWER_MS);
  };
  const late = await lateAttempt(answerLate, 2);
  try {
    await delivered(late.server, late.deliveryId);
    // Nothing more comes: a post by another claimer would have been answered by now.
    await sleep(2 * ANSWER_MS);
    const ids = late.receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, 1, `posted ${ids.length} times under one webhook-id`);
    const outcomes = late.workers.flatMap((w) => w.outcomes);
    assert.deepEqual(
      outcomes.map((o) => o.recorded),
      ['delivered'],
      'no outcome of an attempt that outlived its lease',
    );
    for (const w of late.workers) assert.deepEqual(w.errors, []);
  } finally {
    await late.close();
  }
});
