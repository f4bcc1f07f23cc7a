/**
 * When the server closes a live socket whose peer does not answer (its network gone, or it does not
 * read), the session is recorded closed and its connection slot freed when the server decides,
 * not when the peer's TCP connection finally goes away.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are inspected loosely */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { removeContract } from '../../src/accounts/contracts.ts';
import { channels } from '../../src/bus/types.ts';
import { CLOSE_GRACE_MS } from '../../src/realtime/service.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { TestClient } from '../support/realtime.ts';
import { TcpRelay } from '../support/tcp-relay.ts';
import { waitFor } from '../support/wait.ts';

const SCOPES = ['socket.start', 'socket.list', 'socket.close', 'telegram.get.earthquake', 'eew.get.forecast'];
const PING_INTERVAL_MS = 500;

let server: TestServer;
let relay: TcpRelay;
const clock = new ManualClock(Date.parse('2026-03-01T00:00:00.000Z'));
before(async () => {
  server = await startTestServer({ clock, config: { pingIntervalMs: PING_INTERVAL_MS } });
  relay = new TcpRelay(new URL(server.url), 80);
  await relay.listen();
});
after(async () => {
  await relay.close();
  await server.close();
});

const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });

async function startSession(key: string, classifications: string[]) {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify({ classifications }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function statusOf(key: string, id: number): Promise<string> {
  const res = await fetch(`${server.url}/v2/socket?id=${id}`, { headers: auth(key) });
  return ((await res.json()) as any).items[0].status;
}

/** A socket through the relay, opened and started; `relay.silence()` then cuts its network. */
async function connectThroughRelay(url: string): Promise<TestClient> {
  const relayed = new URL(url);
  relayed.port = String(relay.port);
  const client = new TestClient(relayed.toString());
  assert.equal((await client.next()).type, 'start');
  return client;
}

test('a socket whose network is gone frees its slot at the pong time-out, not a close grace later', async () => {
  // One contract: a limit of one connection.
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, SCOPES);
  const first = (await startSession(key, ['telegram.earthquake'])).json;
  const client = await connectThroughRelay(first.websocket.url);
  relay.silence();
  assert.equal((await startSession(key, ['telegram.earthquake'])).status, 409, 'the slot is held while open');
  clock.advance(120_000);
  // The next ping tick closes it (4891); the slot is free from then on, well within the close grace (5 s).
  await waitFor(async () => (await statusOf(key, first.websocket.id)) === 'closed', {
    timeout: PING_INTERVAL_MS + 1500,
    message: 'the timed-out session to be recorded closed',
  });
  assert.equal((await startSession(key, ['telegram.earthquake'])).status, 200);
  client.ws.terminate();
});

test('a contract that ends closes a silent socket with 4807 and the list shows it closed at once', async () => {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, SCOPES);
  const session = (await startSession(key, ['telegram.earthquake'])).json;
  const client = await connectThroughRelay(session.websocket.url);
  relay.silence();
  await removeContract(server.ctx.db, account.id, 'telegram.earthquake');
  await server.ctx.bus.publish(channels.contracts, JSON.stringify({ accountId: account.id }));
  await waitFor(async () => (await statusOf(key, session.websocket.id)) === 'closed', {
    timeout: 1500,
    message: 'the session ended by its contract to be recorded closed',
  });
  client.ws.terminate();
});

test('a client whose network goes right after its close frame frees its slot within the close grace', async () => {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, SCOPES);
  const session = (await startSession(key, ['telegram.earthquake'])).json;
  const client = new TestClient(session.websocket.url);
  assert.equal((await client.next()).type, 'start');
  // The close frame reaches the server; the client then reads nothing more, so it never sees the
  // server's answer and never ends its side (a phone that closed its app and lost its network).
  client.ws.close(1000);
  (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const closedAt = Date.now();
  await waitFor(async () => (await statusOf(key, session.websocket.id)) === 'closed', {
    timeout: CLOSE_GRACE_MS + 2000,
    message: 'the session closed by its client to be recorded closed',
  });
  assert.ok(Date.now() - closedAt < CLOSE_GRACE_MS + 2000);
  assert.equal((await startSession(key, ['telegram.earthquake'])).status, 200, 'the slot is free again');
  client.ws.terminate();
});
