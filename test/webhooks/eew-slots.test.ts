// Early warnings go first (docs/webhooks.md "Order"): other deliveries never take a process's last
// slots, so attempts to receivers that never answer, however many, do not hold an early warning to a
// live receiver; and a fresh early warning is taken while a slot is free for it even when the process
// holds all it may of other deliveries. The real server (or its workers with small limits), on the
// real database (PGlite, or PostgreSQL with NAMAZU_TEST_DATABASE_URL), real receivers on loopback.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { PRIORITY_EEW, PRIORITY_OTHER, claimDue } from '../../src/webhooks/deliveries.ts';
import {
  EARLY_WARNING_SLOTS,
  MAX_ATTEMPTS_IN_FLIGHT,
  MAX_ATTEMPTS_PER_HOST,
} from '../../src/webhooks/service.ts';
import { ingestFixtures } from '../support/data-api.ts';
import { fixtureIndex, type FixtureEntry } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver } from './receiver.ts';
import { queueOne, subscribingServer, testWorker } from './worker-support.ts';
import type { Db } from '../../src/db/types.ts';
import type { DeliveryWorker } from '../../src/webhooks/worker.ts';

/** The attempts' time limit: what an early warning held behind the hanging attempts would wait. */
const TIMEOUT_MS = 10_000;
/** Well under it: an early warning that waited for a slot would come later. */
const PROMPT_MS = 3000;

const normal = (e: FixtureEntry) => e.status === '通常' && e.infoType === '発表';
const earthquakes = () =>
  fixtureIndex().filter((e) => e.classification === 'telegram.earthquake' && normal(e));
const eew = () => fixtureIndex().find((e) => e.classification.startsWith('eew.') && normal(e))!;

/**
 * A receiver that never answers, on a loopback address of its own (a host of its own for the
 * per-host bound; `startReceiver` listens on 127.0.0.1 only); counts the requests it holds.
 */
async function silentReceiver(address: string) {
  const server = createServer(() => held.count++);
  const held = { count: 0 };
  server.listen(0, address);
  await once(server, 'listening');
  return {
    url: `http://${address}:${(server.address() as AddressInfo).port}/hook`,
    held,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

test('with every slot other deliveries may use held by receivers that never answer, an early warning to a live receiver arrives at once', async () => {
  // Enough hosts that, at 32 attempts each, receivers that hang could hold every slot of the process.
  const hosts = Math.ceil(MAX_ATTEMPTS_IN_FLIGHT / MAX_ATTEMPTS_PER_HOST);
  const silent = await Promise.all(
    Array.from({ length: hosts }, (_, i) => silentReceiver(`127.0.0.${i + 2}`)),
  );
  const live = await startReceiver();
  const { server, subscribe } = await subscribingServer({
    webhookTimeoutMs: TIMEOUT_MS,
    webhookRetryBaseMs: 600_000,
  });
  try {
    for (const r of silent) await subscribe(r.url, ['telegram.earthquake']);
    await subscribe(live.url, ['eew.forecast', 'eew.warning']);
    await ingestFixtures(server, earthquakes().slice(0, MAX_ATTEMPTS_PER_HOST));
    const hanging = () => silent.reduce((sum, r) => sum + r.held.count, 0);
    await waitFor(() => hanging() >= MAX_ATTEMPTS_IN_FLIGHT - EARLY_WARNING_SLOTS, {
      timeout: 15_000,
      message: 'attempts hanging in every slot other deliveries may use',
    });
    const committed = performance.now();
    await ingestFixtures(server, [eew()]);
    await waitFor(() => live.received.length === 1, {
      timeout: TIMEOUT_MS + 5000,
      message: 'the early warning at the live receiver',
    });
    const took = live.received[0]!.at - committed;
    assert.ok(took < PROMPT_MS, `the early warning arrived ${Math.round(took)} ms after its commit`);
  } finally {
    // Closed first: the attempts they held fail at once, and the server stops without waiting for them.
    for (const r of silent) await r.close();
    await server.close();
    await live.close();
  }
});

/**
 * A process of four slots (one for early warnings only) and two deliveries held beyond them, all
 * taken by deliveries to a receiver that never answers, and an early warning stored for a live
 * receiver: `deliver` has it reach that process (as the queuer or a claim would) and returns when
 * it did; the early warning must then arrive at once.
 */
async function promptBesideFullHold(
  deliver: (ctx: {
    db: Db;
    worker: DeliveryWorker;
    liveId: number;
    liveHost: string;
    serial: number;
  }) => Promise<void>,
) {
  const dead = await startReceiver(() => {
    // never answers
  });
  const live = await startReceiver();
  const { server, subscribe } = await subscribingServer({ webhookDelivery: false });
  const { db } = server.ctx;
  const limits = { concurrency: 4, earlyWarningSlots: 1, perHost: 4, hold: 2 };
  const w = testWorker(server, db, { ...limits, leaseMs: 20_000, timeoutMs: TIMEOUT_MS, pollMs: 60_000 });
  try {
    const deadId = await subscribe(dead.url, ['telegram.earthquake']);
    const liveId = await subscribe(live.url, ['eew.forecast', 'eew.warning']);
    const serials = await ingestFixtures(server, earthquakes().slice(0, limits.concurrency + limits.hold));
    for (const serial of serials) await queueOne(db, deadId, serial, PRIORITY_OTHER);
    w.worker.wake();
    await waitFor(() => dead.received.length >= limits.concurrency - limits.earlyWarningSlots, {
      message: 'attempts hanging in every slot other deliveries may use',
    });
    // All of them are claimed: those not begun are held, and the process holds no more.
    await waitFor(
      async () => {
        const [held] = await db.query<{ claimed: number }>(
          `SELECT count(*)::int AS claimed FROM webhook_deliveries WHERE lease_until IS NOT NULL`,
        );
        return held!.claimed === serials.length;
      },
      { message: 'every other delivery claimed: the hold full' },
    );
    const [serial] = await ingestFixtures(server, [eew()]);
    const since = performance.now();
    await deliver({ db, worker: w.worker, liveId, liveHost: new URL(live.url).hostname, serial: serial! });
    await waitFor(() => live.received.length === 1, {
      timeout: TIMEOUT_MS + 5000,
      message: 'the early warning at the live receiver',
    });
    const took = live.received[0]!.at - since;
    assert.ok(took < PROMPT_MS, `the early warning arrived ${Math.round(took)} ms after it was stored`);
    assert.deepEqual(w.errors, []);
  } finally {
    await dead.close();
    await w.stop();
    await server.close();
    await live.close();
  }
}

test('a fresh early warning is taken while a slot is free for it, though the process holds all it may of other deliveries', () =>
  promptBesideFullHold(async ({ db, worker, liveId, liveHost, serial }) => {
    // The queuer's question for a telegram to one subscription, an early warning.
    assert.deepEqual(worker.wouldTake([liveHost], 1), [true]);
    // Queued claimed for this process, as the queuer does with what the workers would take.
    await queueOne(db, liveId, serial, PRIORITY_EEW);
    const claiming = performance.now();
    worker.take(await claimDue(db, 1, 20_000, []), claiming);
  }));

test('an early warning due again in the queue is claimed while a slot is free for it, though the process holds all it may of other deliveries', () =>
  promptBesideFullHold(async ({ db, worker, liveId, serial }) => {
    // Due in the queue, as a retry is when its backoff ends, and the queue looked at.
    await queueOne(db, liveId, serial, PRIORITY_EEW);
    worker.wake();
  }));
