/**
 * A bus outage during the stream loses nothing (docs/operations.md, "When the bus fails"): Redis
 * killed and started again, or the PostgreSQL LISTEN connection terminated again and again, while
 * another process's ingest keeps storing telegrams. Every WebSocket client gets every telegram once,
 * in serial order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { openBus } from '../../src/bus/open.ts';
import { LISTENER_APPLICATION_NAME } from '../../src/bus/postgres.ts';
import type { Bus } from '../../src/bus/types.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { afterMarker, quake, sleep, startRedis, startSocket, StreamSocket, waitFor } from './support.ts';

/** Opens `count` sockets into `out` (so that a failure half-way still closes those opened). */
async function openSockets(server: TestServer, count: number, out: StreamSocket[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
    const started = await startSocket(server.url, key, ['telegram.earthquake']);
    assert.equal(started.status, 200);
    const socket = new StreamSocket(started.url!);
    await socket.started;
    out.push(socket);
  }
}

/**
 * Ingests a telegram every 100 ms through `bus` (as another process would) while `outage` runs;
 * then checks that every socket got every telegram once, in order.
 */
async function streamThrough(
  server: TestServer,
  bus: Bus,
  clients: StreamSocket[],
  outage: () => Promise<void>,
): Promise<number> {
  const sent: string[] = [];
  let streaming = true;
  const stream = (async () => {
    for (let i = 0; streaming; i++) {
      const out = await ingestTelegram(
        { db: server.ctx.db, bus, telegrams: server.ctx.telegrams },
        quake(`outage ${i}`),
        {
          receivedTime: Date.now(),
        },
      );
      assert.ok(out.ok);
      sent.push(out.stored.id);
      await sleep(100);
    }
  })();
  try {
    await waitFor('the stream to start', () => clients.every((c) => c.ids.length >= 5), 10_000);
    const beforeOutage = sent.length;
    await outage();
    const afterOutage = sent.length;
    assert.ok(
      afterOutage - beforeOutage >= 2,
      `${afterOutage - beforeOutage} telegrams stored during the outage`,
    );
    await waitFor('telegrams after the outage', () => sent.length >= afterOutage + 5, 10_000);
  } finally {
    // Stop ingesting before anything is torn down, whether the checks passed or not.
    streaming = false;
    await stream;
  }
  await waitFor(
    'every telegram on every socket',
    () => clients.every((c) => c.ids.length >= sent.length),
    10_000,
  );
  const marker = await afterMarker(clients, async () => {
    const out = await ingestTelegram(
      { db: server.ctx.db, bus, telegrams: server.ctx.telegrams },
      quake('marker'),
      {
        receivedTime: Date.now(),
      },
    );
    assert.ok(out.ok);
    return out.stored.id;
  });
  for (const c of clients) assert.deepEqual(c.ids, [...sent, marker], 'every telegram once, in serial order');
  return sent.length;
}

test(
  'Redis killed mid-stream and started again: nothing lost',
  { skip: process.env.NAMAZU_TEST_REDIS_URL ? false : 'NAMAZU_TEST_REDIS_URL is not set' },
  async () => {
    const redis = await startRedis();
    const server = await startTestServer({ config: { bus: 'redis', redisUrl: redis.url } });
    const ingestBus = await openBus({ bus: 'redis', databaseUrl: null, redisUrl: redis.url });
    const clients: StreamSocket[] = [];
    try {
      await openSockets(server, 3, clients);
      const sent = await streamThrough(server, ingestBus, clients, async () => {
        await redis.stop();
        await sleep(3000); // the outage itself
        await redis.restart();
      });
      console.log(`Redis outage of 3 s: ${sent} telegrams delivered to every client`);
    } finally {
      for (const c of clients) c.close();
      await ingestBus.close();
      await server.close();
      await redis.remove();
    }
  },
);

test(
  'the PostgreSQL LISTEN connection terminated mid-stream (repeatedly, for 3 s): nothing lost',
  { skip: testDatabaseUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  async () => {
    const server = await startTestServer({ config: { bus: 'postgres' } });
    const databaseUrl = server.database.databaseUrl!;
    const ingestBus = await openBus({ bus: 'postgres', databaseUrl, redisUrl: null });
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const clients: StreamSocket[] = [];
    try {
      await openSockets(server, 3, clients);
      let terminated = 0;
      await streamThrough(server, ingestBus, clients, async () => {
        // The server's listener reconnects after 0.5 s; terminating it again keeps the bus down.
        const end = performance.now() + 3000;
        while (performance.now() < end) {
          const rows = await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = $1`,
            [LISTENER_APPLICATION_NAME],
          );
          terminated += rows.rowCount ?? 0;
          await sleep(100);
        }
      });
      assert.ok(terminated >= 3, `LISTEN connections terminated: ${terminated}`);
      console.log(`PostgreSQL listener terminated ${terminated} times over 3 s: every telegram delivered`);
    } finally {
      for (const c of clients) c.close();
      await admin.end();
      await ingestBus.close();
      await server.close();
    }
  },
);
