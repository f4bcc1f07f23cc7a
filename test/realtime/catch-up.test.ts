/**
 * The catch-up of a resuming connection (src/realtime/catch-up.ts, docs/realtime.md "Resume") where
 * it meets its limits: a page larger than the slow-consumer bound, a dispatcher that read past what
 * the telegram cache holds, and a store that fails the read of the telegram to resume after.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { ManualClock } from '../../src/clock.ts';
import { openDb } from '../../src/db/open.ts';
import { clientAddress } from '../../src/http/client-address.ts';
import { CatchUp } from '../../src/realtime/catch-up.ts';
import { Dispatcher, type TelegramSource } from '../../src/realtime/dispatcher.ts';
import { answerAsRequest, attachWebSocketEndpoint } from '../../src/realtime/endpoint.ts';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { Heartbeat } from '../../src/realtime/heartbeat.ts';
import { Hub } from '../../src/realtime/hub.ts';
import { TelegramCache } from '../../src/telegrams/cache.ts';
import { ingestTelegram, type IngestDeps } from '../../src/telegrams/ingest.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { createTestDatabase } from '../support/database.ts';
import { MemoryGate, TestClient, record } from '../support/realtime.ts';
import { startTestServer } from '../support/server.ts';
import { SseClient } from '../support/sse.ts';
import { waitFor } from '../support/wait.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

/** A distinct binary telegram (BUFR: one serial, no conversion) of `bytes` random bytes. */
const binary = (bytes: number) =>
  Buffer.concat([Buffer.from('IXAC41 RJTD 110000\r\r\nBUFR'), randomBytes(bytes)]);

async function ingest(deps: IngestDeps, bytes = 64): Promise<{ id: string; serial: number }> {
  const outcome = await ingestTelegram(deps, binary(bytes), { receivedTime: Date.now() });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  return { id: outcome.stored.id, serial: outcome.stored.serial };
}

/** The next `data` message (pings skipped). */
async function nextData(client: TestClient): Promise<Record<string, unknown>> {
  let m = await client.next();
  while (m.type === 'ping') m = await client.next();
  return m;
}

/** Nothing else was sent: the answer to a ping is the next message. */
async function noMoreMessages(client: TestClient) {
  client.send({ type: 'ping', pingId: 'end' });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: 'end' }, 'nothing else was sent');
}

/**
 * The real-time pieces of one process on `source`, with tickets held in memory: the hub, its
 * dispatcher, the catch-up, and the WebSocket endpoint that runs it for a ticket with `resumeAfter`.
 */
async function startProcess(source: TelegramSource) {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const hub = new Hub({ chunkSize: 256 });
  const errors: unknown[] = [];
  const onError = (err: unknown) => errors.push(err);
  const dispatcher = new Dispatcher(hub, source, clock, 'namazu/test', onError);
  const catchUp = new CatchUp(hub, dispatcher, source, clock, 'namazu/test', onError);
  const gate = new MemoryGate();
  const answer = answerAsRequest((_req, res) => res.writeHead(404).end());
  const server = createServer((_req, res) => res.writeHead(404).end());
  attachWebSocketEndpoint(server, {
    hub,
    heartbeat: new Heartbeat(hub, clock, { timeoutMs: 120_000 }),
    gate,
    clock,
    catchUp,
    onError,
    maxBufferedBytes: 1 << 20,
    maxClientMessageBytes: 4096,
    closeGraceMs: 1000,
    clientAddress: (req) => clientAddress(req, 0),
    passOn: answer,
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let tickets = 0;
  return {
    hub,
    dispatcher,
    errors,
    /** A client of a session that resumes after `resumeAfter`, once its `start` arrived. */
    async resume(resumeAfter: number): Promise<TestClient> {
      const ticket = `t${++tickets}`;
      gate.tickets.set(ticket, { socketId: tickets, filter, appName: null, resumeAfter });
      const client = new TestClient(`ws://127.0.0.1:${port}/v2/websocket?ticket=${ticket}`);
      assert.equal((await client.next()).type, 'start');
      return client;
    },
    stop() {
      server.closeAllConnections();
      server.close();
    },
  };
}

test('a catch-up page larger than the slow-consumer bound reaches a client that reads normally', async (t) => {
  // The smallest telegram limit: the bound is 2 MiB + 128 KiB; a page of 100 telegrams of 60 KiB is
  // 8 MB of messages, more than the bound and the kernel's buffers take at once.
  // (A spare connection fetch may open and never use holds the close for the idle time-out.)
  const server = await startTestServer({ config: { maxTelegramBytes: 64 * 1024, idleTimeoutMs: 1000 } });
  try {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus2'] });
    const key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
    const authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    const origin = await ingest(server.ctx);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await ingest(server.ctx, 60 * 1024)).id);

    await t.test('a socket', { timeout: 30_000 }, async () => {
      const res = await fetch(`${server.url}/v2/socket`, {
        method: 'POST',
        headers: { authorization },
        body: JSON.stringify({ classifications: ['telegram.earthquake'], after: origin.id }),
      });
      assert.equal(res.status, 200);
      const { websocket } = (await res.json()) as { websocket: { url: string } };
      const client = new TestClient(websocket.url);
      assert.equal((await client.next()).type, 'start');
      const received: unknown[] = [];
      for (let i = 0; i < ids.length; i++) {
        const m = await nextData(client);
        assert.equal(m.type, 'data', JSON.stringify(m));
        received.push(m.id);
      }
      assert.deepEqual(received, ids, 'every telegram of the page, in order');
      await noMoreMessages(client);
      client.ws.close();
      await client.closed;
    });

    await t.test('a stream', { timeout: 30_000 }, async () => {
      const url = `${server.url}/v2/stream?classifications=telegram.earthquake&after=${origin.id}`;
      const stream = new SseClient(url, { authorization });
      let ended = false;
      void stream.ended.then(() => (ended = true));
      assert.equal(await stream.opened, 200);
      await waitFor(() => stream.events.length >= ids.length || ended, { timeout: 20_000 });
      assert.deepEqual(
        stream.events.map((e) => [e.event, e.id]),
        ids.map((id) => ['data', id]),
        'every telegram as a data event, no error',
      );
      stream.abort();
      await stream.ended;
    });
  } finally {
    await server.close();
  }
});

test(
  'a catch-up reads what the dispatcher broadcast from the database past what the cache holds',
  { timeout: 30_000 },
  async () => {
    const database = await createTestDatabase();
    const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
    const bus = createMemoryBus();
    // The cache holds the newest four; telegrams stored by "another process" (its own bus) reach it
    // only when it reads the database.
    const { cache, stop } = await TelegramCache.start(db, bus, { maxItems: 4 });
    const elsewhere = { db, bus: createMemoryBus() };
    const here = await startProcess(cache);
    try {
      await ingest(elsewhere);
      await here.dispatcher.start();
      const stored: { id: string; serial: number }[] = [];
      for (let i = 0; i < 8; i++) stored.push(await ingest(elsewhere));
      await cache.refresh();
      const newest = stored.at(-1)!;
      assert.ok(
        cache.holds(newest.serial) && cache.serialOf(stored[3]!.id) === undefined,
        'trimmed past the dispatcher',
      );
      // Committed after the cache's last read: the dispatcher, behind the cache, reads the database
      // (announced serial held, so no refresh) and broadcasts it; the cache does not hold it.
      const late = await ingest(elsewhere);
      here.dispatcher.announce({ serial: newest.serial });
      await waitFor(() => here.dispatcher.position === late.serial, {
        message: 'the dispatcher read past the cache',
      });
      assert.equal(cache.holds(late.serial), false);

      const client = await here.resume(stored.at(-3)!.serial);
      const got = [await client.next(), await client.next(), await client.next()];
      assert.deepEqual(
        got.map((m) => m.id),
        [stored.at(-2)!.id, newest.id, late.id],
        'the two held telegrams, then the one only the database had',
      );
      await noMoreMessages(client);
      client.ws.close();
      assert.deepEqual(here.errors, []);
    } finally {
      here.stop();
      await stop();
      await bus.close();
      await elsewhere.bus.close();
      await db.close();
      await database.drop();
    }
  },
);

/** Telegrams in memory; the next read fails when `failNext` is set, as a store that is unreachable. */
class FailingStore implements TelegramSource {
  readonly records: TelegramRecord[] = [];
  failNext = false;
  async newest(): Promise<number> {
    return this.records.at(-1)?.serial ?? 0;
  }
  async after(after: number, limit: number): Promise<TelegramRecord[]> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the store is unreachable');
    }
    return this.records.filter((r) => r.serial > after).slice(0, limit);
  }
}

test(
  'a resume the dispatcher could not reach (store error) closes with 4503 instead of joining; the next resume is exact',
  { timeout: 10_000 },
  async () => {
    const store = new FailingStore();
    const here = await startProcess(store);
    try {
      store.records.push(record({ serial: 1 }));
      await here.dispatcher.start();
      // Committed elsewhere, not yet read here; the client has both. The read they wake fails.
      const missed = [record({ serial: 2 }), record({ serial: 3 })];
      store.records.push(...missed);
      store.failNext = true;
      const client = await here.resume(3);
      assert.deepEqual(await client.next(), {
        type: 'error',
        error: 'Internal server error; reconnect.',
        code: 4503,
        close: true,
      });
      assert.equal((await client.closed).code, 4503);
      assert.equal(here.errors.length, 1, 'the failed read was reported');
      // The store heals: what the client already has goes to nobody, and its next resume is live.
      here.dispatcher.wake();
      await here.dispatcher.settled();
      assert.equal(here.dispatcher.position, 3);
      const again = await here.resume(3);
      const fresh = record({ serial: 4 });
      store.records.push(fresh);
      here.dispatcher.wake();
      assert.equal((await again.next()).id, fresh.id, 'the first telegram after the one it had');
      await noMoreMessages(again);
      again.ws.close();
    } finally {
      here.stop();
    }
  },
);
