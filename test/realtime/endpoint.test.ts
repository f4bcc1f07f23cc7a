import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { TestClient, record, startEndpoint } from '../support/realtime.ts';
import { waitFor } from '../support/wait.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake', 'eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

let env: Awaited<ReturnType<typeof startEndpoint>>;
let nextId = 1;
beforeEach(async () => {
  env = await startEndpoint();
});
afterEach(() => env.stop());

/** Issues a ticket for a new session and connects with it; resolves after `start`. */
async function open(protocols?: string | string[], f: DeliveryFilter = filter) {
  const socketId = nextId++;
  const ticket = `T${socketId}`;
  env.gate.tickets.set(ticket, { socketId, filter: f, appName: 'test-app' });
  const client = new TestClient(env.url(ticket), protocols);
  const start = await client.next();
  return { client, start, socketId, ticket };
}

test('start message after open, with the session and the subprotocol echoed', async () => {
  const { client, start, socketId } = await open('service.v2');
  assert.equal(client.ws.protocol, 'service.v2');
  assert.deepEqual(start, {
    type: 'start',
    socketId,
    classifications: filter.classifications,
    types: null,
    test: 'no',
    formats: ['xml', 'a/n', 'binary'],
    appName: 'test-app',
    time: '2026-01-01T00:00:00.000Z',
  });
  client.ws.close();
  await client.closed;
});

test('dmdata.v2 is echoed and a handshake with no subprotocol succeeds', async () => {
  const a = await open('dmdata.v2');
  assert.equal(a.client.ws.protocol, 'dmdata.v2');
  const b = await open();
  assert.equal(b.client.ws.protocol, '');
  assert.equal(b.start.type, 'start');
  a.client.ws.close();
  b.client.ws.close();
});

test('4400 without a ticket, 4404 for an unknown or reused ticket', async () => {
  const none = new TestClient(`${env.base}/v2/websocket`);
  assert.deepEqual(await none.next(), {
    type: 'error',
    error: 'The ticket is required.',
    code: 4400,
    close: true,
  });
  assert.equal((await none.closed).code, 4400);

  const unknown = new TestClient(env.url('nope'));
  const err = await unknown.next();
  assert.equal(err.code, 4404);
  assert.equal(err.close, true);
  assert.equal((await unknown.closed).code, 4404);

  const { client, ticket } = await open();
  const reuse = new TestClient(env.url(ticket));
  assert.equal((await reuse.next()).code, 4404);
  assert.equal((await reuse.closed).code, 4404);
  client.ws.close();
});

test('other paths are not WebSocket endpoints', async () => {
  const c = new TestClient(`${env.base}/v2/other?ticket=x`);
  const err = await new Promise<Error>((resolve) => c.ws.on('error', resolve));
  assert.match(err.message, /404/);
});

test('client ping gets a pong echoing its pingId; non-JSON gets 4641 without closing', async () => {
  const { client } = await open();
  client.send({ type: 'ping', pingId: 'abc' });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: 'abc' });
  client.send({ type: 'ping' });
  assert.deepEqual(await client.next(), { type: 'pong' });
  client.send('not json');
  assert.deepEqual(await client.next(), {
    type: 'error',
    error: 'The message is not valid JSON.',
    code: 4641,
    close: false,
  });
  client.send({ type: 'ping', pingId: 1 });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: '1' });
  client.ws.close();
  await client.closed;
});

test('server pings; the right pong keeps the connection, a wrong one closes with 4640', async () => {
  const good = await open();
  const bad = await open();
  env.heartbeat.tick();
  const p1 = await good.client.next();
  const p2 = await bad.client.next();
  assert.equal(p1.type, 'ping');
  assert.match(String(p1.pingId), /^[A-Za-z0-9_-]{4,16}$/);
  assert.equal(p2.pingId, p1.pingId);
  good.client.send({ type: 'pong', pingId: p1.pingId });
  bad.client.send({ type: 'pong', pingId: 'wrong' });
  assert.deepEqual(await bad.client.next(), {
    type: 'error',
    error: 'The pingId of the pong does not match the latest ping.',
    code: 4640,
    close: true,
  });
  assert.equal((await bad.client.closed).code, 4640);
  // The good one is still served.
  good.client.send({ type: 'ping', pingId: 'still' });
  assert.deepEqual(await good.client.next(), { type: 'pong', pingId: 'still' });
  good.client.ws.close();
});

test('a pong to any ping of the last 120 s keeps the connection; an older one closes with 4640', async () => {
  const late = await open();
  const older = await open();
  const pingIds: string[] = [];
  // Pings every 30 s: at 120 s the first has left the pong timeout, the second has not.
  for (let i = 0; i < 5; i++) {
    if (i > 0) env.clock.advance(30_000);
    env.heartbeat.tick();
    const ping = await late.client.next();
    assert.equal((await older.client.next()).pingId, ping.pingId);
    pingIds.push(String(ping.pingId));
    // Both stay alive for the pong timeout: each answers the third ping (and waits until the answer
    // was read: a client ping is answered after it, in order).
    if (i !== 2) continue;
    for (const { client } of [late, older]) {
      client.send({ type: 'pong', pingId: ping.pingId });
      client.send({ type: 'ping', pingId: 'sync' });
      assert.equal((await client.next()).type, 'pong');
    }
  }
  // Both fell behind: `late` answers the ping of 90 s ago, `older` the one of 120 s ago.
  late.client.send({ type: 'pong', pingId: pingIds[1] });
  older.client.send({ type: 'pong', pingId: pingIds[0] });
  assert.equal((await older.client.next()).code, 4640);
  assert.equal((await older.client.closed).code, 4640);
  // The late pong was taken: `late` is served, and its answer to the latest ping is valid too.
  late.client.send({ type: 'pong', pingId: pingIds[4] });
  late.client.send({ type: 'ping', pingId: 'still' });
  assert.deepEqual(await late.client.next(), { type: 'pong', pingId: 'still' });
  late.client.ws.close();
});

test('no valid pong for 120 s closes with 4891; answering keeps it alive', async () => {
  const silent = await open();
  const polite = await open();
  for (let i = 0; i < 4; i++) {
    env.clock.advance(30_000);
    env.heartbeat.tick();
    if (i < 3) {
      const ping = await polite.client.next();
      polite.client.send({ type: 'pong', pingId: ping.pingId });
      assert.equal((await silent.client.next()).type, 'ping');
      // Wait for the pong to arrive: a client ping is answered after it, in order.
      polite.client.send({ type: 'ping', pingId: 'sync' });
      assert.equal((await polite.client.next()).type, 'pong');
    }
  }
  const err = await silent.client.next();
  assert.equal(err.code, 4891);
  assert.equal(err.close, true);
  assert.equal((await silent.client.closed).code, 4891);
  assert.equal((await polite.client.next()).type, 'ping');
  assert.ok(env.hub.get(polite.socketId));
  assert.equal(env.hub.get(silent.socketId)?.closing ?? true, true);
  polite.client.ws.close();
});

test('data is delivered by filter, and the closed session is reported to the gate', async () => {
  const all = await open();
  const only51 = await open(undefined, { ...filter, types: ['VXSE51'] });
  const weather = await open(undefined, { ...filter, classifications: ['telegram.weather'] });
  const r53 = record({ type: 'VXSE53' });
  const r51 = record({ type: 'VXSE51' });
  assert.equal(env.hub.broadcast(r53, []), 1);
  assert.equal(env.hub.broadcast(r51, []), 2);
  await env.hub.drained();
  assert.equal((await all.client.next()).id, r53.id);
  assert.equal((await all.client.next()).id, r51.id);
  assert.equal((await only51.client.next()).id, r51.id);
  weather.client.send({ type: 'ping', pingId: 'x' });
  assert.deepEqual(await weather.client.next(), { type: 'pong', pingId: 'x' }, 'nothing before the pong');
  for (const c of [all, only51, weather]) {
    c.client.ws.close();
    await c.client.closed;
  }
  await waitFor(() => [all, only51, weather].every((c) => env.gate.closedIds.includes(c.socketId)), {
    message: 'the server to see every close',
  });
  for (const c of [all, only51, weather]) assert.ok(env.gate.closedIds.includes(c.socketId));
});

test('shutdown closes every connection with 4503 and refuses new ones', async () => {
  const other = await startEndpoint();
  other.gate.tickets.set('a', { socketId: 1, filter, appName: null });
  other.gate.tickets.set('b', { socketId: 2, filter, appName: null });
  const a = new TestClient(other.url('a'));
  assert.equal((await a.next()).type, 'start');
  other.endpoint.close(4503, 'The server is restarting; reconnect.');
  assert.deepEqual(await a.next(), {
    type: 'error',
    error: 'The server is restarting; reconnect.',
    code: 4503,
    close: true,
  });
  assert.equal((await a.closed).code, 4503);
  const b = new TestClient(other.url('b'));
  const refused = await new Promise<Error>((resolve) => b.ws.on('error', resolve));
  assert.match(refused.message, /503/);
  await other.stop();
});

test('a binary frame is not JSON (4641); a frame over 4 KiB closes the connection (1009)', async () => {
  const { client } = await open();
  client.ws.send(Buffer.from('{"type":"ping"}'), { binary: true });
  const err = await client.next();
  assert.equal(err.code, 4641);
  assert.equal(err.close, false);
  client.send({ type: 'ping', pingId: 'x'.repeat(5000) });
  assert.equal((await client.closed).code, 1009);
});
