/**
 * An account's connection limit goes down while its connections are open (docs/realtime.md "The
 * connection limit"): the connections opened last, beyond the new limit, get an `error` and close
 * with 4409 (a stream gets the `error` event and ends); the others stay and keep receiving. Every
 * path that lowers the limit: a plus contract removed and announced (as `namazu contract remove` and
 * the console do), the operator's limit lowered (`namazu account limit`, the administration's page:
 * no announcement), and a contract ended in the store with no announcement.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setConnectionLimit } from '../../src/accounts/connection-limit.ts';
import { removeContract } from '../../src/accounts/contracts.ts';
import { busCodecs } from '../../src/bus/codecs.ts';
import { createMemoryBus } from '../../src/bus/memory.ts';
import type { Config } from '../../src/config.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { SseClient } from '../support/sse.ts';

const QUAKE = readFileSync(fixture('official', '32-35_04_04_240613_VXSE53.xml'));
const LIMIT_MESSAGE = 'The connection limit of the account went down; this connection is beyond it.';

/**
 * The next message of a client that is not a ping (clients here do not answer pings); fails when
 * none comes within `ms`.
 */
async function nextMessage(client: TestClient, ms = 3000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const message = await Promise.race([
      client.next(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no message within ${ms} ms`)), deadline - Date.now()),
      ),
    ]);
    if (message.type !== 'ping') return message;
  }
}

/** Resolves with the close code, or 'open' when the connection is still open after `ms`. */
function closedWithin(client: TestClient, ms: number): Promise<number | 'open'> {
  return Promise.race([
    client.closed.then(({ code }) => code),
    new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms)),
  ]);
}

interface Opened {
  server: TestServer;
  accountId: number;
  authorization: string;
  /** The sockets, in the order they opened. */
  sockets: { id: number; client: TestClient }[];
}

/**
 * A server, an account with `contracts`, and `count` sockets of it opened one after another (each
 * waits for its `start`, so their order is the order they opened).
 */
async function openSockets(
  contracts: string[],
  count: number,
  config: Partial<Config> = {},
): Promise<Opened> {
  const server = await startTestServer({ config });
  const { account } = await server.createAccount({ contracts });
  const key = await server.createApiKey(account.id, [
    'socket.start',
    'socket.list',
    'telegram.get.earthquake',
  ]);
  const authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  const sockets: Opened['sockets'] = [];
  for (let i = 0; i < count; i++) {
    const r = await fetch(`${server.url}/v2/socket`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
    });
    assert.equal(r.status, 200, `socket ${i}`);
    const { websocket } = (await r.json()) as { websocket: { id: number; url: string } };
    const client = new TestClient(websocket.url);
    assert.equal((await nextMessage(client)).type, 'start');
    sockets.push({ id: websocket.id, client });
  }
  return { server, accountId: account.id, authorization, sockets };
}

/** The account's sessions by id: their status and close code as the store holds them. */
async function stored(server: TestServer, accountId: number) {
  const rows = await server.ctx.db.query<{ id: number; status: string; close_code: number | null }>(
    'SELECT id, status, close_code FROM socket_sessions WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  return new Map(rows.map((r) => [Number(r.id), { status: r.status, code: r.close_code }]));
}

/** Those of `kept` receive a telegram ingested now. */
async function stillReceive(server: TestServer, kept: TestClient[]): Promise<void> {
  const raw = Buffer.concat([QUAKE, Buffer.from(`\n<!-- ${Math.random()} -->\n`)]);
  const outcome = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
  assert.ok(outcome.ok);
  for (const client of kept) assert.equal((await nextMessage(client)).type, 'data');
}

test('a plus contract removed and announced: the connections opened last beyond the new limit close with 4409, a stream too', async () => {
  // telegram.earthquake and websocket.plus2: a limit of 3.
  const { server, accountId, authorization, sockets } = await openSockets(
    ['telegram.earthquake', 'websocket.plus2'],
    2,
  );
  try {
    const stream = new SseClient(`${server.url}/v2/stream?classifications=telegram.earthquake`, {
      authorization,
    });
    assert.equal(await stream.opened, 200);
    // The limit goes down to 1, as `namazu contract remove` and the console's contracts page do it.
    await removeContract(server.ctx.db, accountId, 'websocket.plus2');
    await busCodecs.contracts.publish(server.ctx.bus, { accountId });

    const [first, second] = sockets;
    assert.deepEqual(await nextMessage(second!.client), {
      type: 'error',
      error: LIMIT_MESSAGE,
      code: 4409,
      close: true,
    });
    assert.equal(await closedWithin(second!.client, 2000), 4409);
    await stream.ended;
    const errors = stream.events.filter((e) => e.event === 'error').map((e) => JSON.parse(e.data));
    assert.deepEqual(errors, [{ type: 'error', error: LIMIT_MESSAGE, code: 4409, close: true }]);

    assert.equal(await closedWithin(first!.client, 300), 'open');
    await stillReceive(server, [first!.client]);
    const sessions = await stored(server, accountId);
    assert.deepEqual(sessions.get(first!.id), { status: 'open', code: null });
    assert.deepEqual(sessions.get(second!.id), { status: 'closed', code: 4409 });
    assert.deepEqual(
      [...sessions.values()].filter((s) => s.status === 'closed'),
      [
        { status: 'closed', code: 4409 },
        { status: 'closed', code: 4409 },
      ],
    );
    first!.client.ws.close(1000);
    await first!.client.closed;
  } finally {
    await server.close();
  }
});

test('a classification contract removed with a plus contract: the one left with nothing gets 4807, and no more than the excess closes', async () => {
  // Three classification contracts and websocket.plus2: a limit of 5; one socket per classification.
  const server = await startTestServer();
  try {
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning', 'websocket.plus2'],
    });
    const key = await server.createApiKey(account.id, [
      'socket.start',
      'telegram.get.earthquake',
      'eew.get.forecast',
      'eew.get.warning',
    ]);
    const clients: TestClient[] = [];
    for (const classification of [
      'telegram.earthquake',
      'eew.forecast',
      'eew.warning',
      'telegram.earthquake',
    ]) {
      const r = await fetch(`${server.url}/v2/socket`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
        body: JSON.stringify({ classifications: [classification] }),
      });
      const { websocket } = (await r.json()) as { websocket: { url: string } };
      const client = new TestClient(websocket.url);
      assert.equal((await nextMessage(client)).type, 'start');
      clients.push(client);
    }
    // Limit 5 → 2: the eew.forecast socket has nothing left (4807) and no longer counts; of the
    // three left, the one opened last goes.
    await removeContract(server.ctx.db, account.id, 'websocket.plus2');
    await removeContract(server.ctx.db, account.id, 'eew.forecast');
    await busCodecs.contracts.publish(server.ctx.bus, { accountId: account.id });
    const [quake, forecast, warning, lastQuake] = clients;
    assert.equal(await closedWithin(forecast!, 2000), 4807);
    assert.equal(await closedWithin(lastQuake!, 2000), 4409);
    assert.equal(await closedWithin(quake!, 300), 'open');
    assert.equal(await closedWithin(warning!, 10), 'open');
    await stillReceive(server, [quake!]);
  } finally {
    await server.close();
  }
});

test('the limit lowered in the store with no announcement (one missed): the excess closes with 4409 at the next ping tick', async () => {
  const { server, accountId, sockets } = await openSockets(['telegram.earthquake', 'websocket.plus2'], 3, {
    pingIntervalMs: 300,
  });
  try {
    // The store alone: the announcement that `namazu account limit` and the console make was missed.
    await setConnectionLimit(server.ctx.db, accountId, 1);
    const codes = await Promise.all(sockets.map(({ client }) => closedWithin(client, 3000)));
    assert.deepEqual(codes, ['open', 4409, 4409]);
    await stillReceive(server, [sockets[0]!.client]);
    const sessions = await stored(server, accountId);
    assert.deepEqual(
      sockets.map(({ id }) => sessions.get(id)),
      [
        { status: 'open', code: null },
        { status: 'closed', code: 4409 },
        { status: 'closed', code: 4409 },
      ],
    );
  } finally {
    await server.close();
  }
});

test('a plus contract ended in the store with no announcement: the excess closes with 4409 at the next ping tick', async () => {
  const { server, accountId, authorization, sockets } = await openSockets(
    ['telegram.earthquake', 'websocket.plus5'],
    4,
    { pingIntervalMs: 300 },
  );
  try {
    await removeContract(server.ctx.db, accountId, 'websocket.plus5');
    const codes = await Promise.all(sockets.map(({ client }) => closedWithin(client, 3000)));
    assert.deepEqual(codes, ['open', 4409, 4409, 4409]);
    await stillReceive(server, [sockets[0]!.client]);
    // The one slot left is the first socket's: a new start is refused.
    const again = await fetch(`${server.url}/v2/socket`, {
      method: 'POST',
      headers: { authorization },
      body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
    });
    assert.equal(again.status, 409);
  } finally {
    await server.close();
  }
});

test(
  'two processes, the one holding the sockets not told: it closes those the other chose at its next ping tick',
  { skip: testDatabaseUrl ? false : 'two servers on one database: PostgreSQL (NAMAZU_TEST_DATABASE_URL)' },
  async () => {
    const database = await createTestDatabase();
    // No bus between the two: each has its own.
    const told = await startTestServer({ database, bus: createMemoryBus(), config: { pingIntervalMs: 300 } });
    const holding = await startTestServer({
      database,
      bus: createMemoryBus(),
      config: { pingIntervalMs: 300 },
    });
    try {
      const { account } = await told.createAccount({ contracts: ['telegram.earthquake', 'websocket.plus2'] });
      const key = await told.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
      const clients: TestClient[] = [];
      for (const server of [told, holding, holding]) {
        const r = await fetch(`${server.url}/v2/socket`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
          body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
        });
        const { websocket } = (await r.json()) as { websocket: { url: string } };
        const client = new TestClient(websocket.url);
        assert.equal((await nextMessage(client)).type, 'start');
        clients.push(client);
      }
      await removeContract(told.ctx.db, account.id, 'websocket.plus2');
      await busCodecs.contracts.publish(told.ctx.bus, { accountId: account.id });
      const codes = await Promise.all(clients.map((client) => closedWithin(client, 3000)));
      assert.deepEqual(codes, ['open', 4409, 4409]);
    } finally {
      await holding.close();
      await told.close();
      await database.drop();
    }
  },
);
