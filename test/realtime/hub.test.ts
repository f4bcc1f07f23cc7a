import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { TestClient, record, startEndpoint } from '../support/realtime.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake', 'eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

async function openMany(
  env: Awaited<ReturnType<typeof startEndpoint>>,
  n: number,
  filterOf: (socketId: number) => DeliveryFilter = () => filter,
) {
  const clients: TestClient[] = [];
  for (let i = 1; i <= n; i++) {
    env.gate.tickets.set(`t${i}`, { socketId: i, filter: filterOf(i), appName: null });
    clients.push(new TestClient(env.url(`t${i}`)));
  }
  for (const c of clients) assert.equal((await c.next()).type, 'start');
  return clients;
}

/** An endpoint whose connections all end with the test, whether it passed or not. */
async function endpointFor(t: TestContext, chunkSize: number) {
  const env = await startEndpoint({ chunkSize });
  t.after(async () => {
    for (const conn of [...env.hub.connections()]) conn.terminate();
    await env.stop();
  });
  return env;
}

/** A telegram with a body (and so an id) of its own. */
function telegram(type: string, classification = 'telegram.earthquake') {
  return record({ type, classification, body: Buffer.from(`<Report>${type} ${randomUUID()}</Report>`) });
}

/** Nothing else was sent: a ping is answered next. */
async function noMoreMessages(client: TestClient) {
  client.send({ type: 'ping', pingId: 'end' });
  assert.deepEqual(await client.next(), { type: 'pong', pingId: 'end' }, 'nothing else was sent');
}

/** The ids of the next `count` messages. */
async function idsOf(client: TestClient, count: number): Promise<unknown[]> {
  const ids: unknown[] = [];
  for (let i = 0; i < count; i++) ids.push((await client.next()).id);
  return ids;
}

test('an EEW during a broadcast still under way ends before it; each connection gets both in serial order, once', async (t) => {
  const env = await endpointFor(t, 4);
  const clients = await openMany(env, 20);
  const quake = telegram('VXSE53');
  const eew = telegram('VXSE45', 'eew.forecast');
  const done: string[] = [];
  env.hub.broadcast(quake, [], () => done.push('quake')); // 4 sockets at once, the rest on later turns
  env.hub.broadcast(eew, [], () => done.push('eew'));
  await env.hub.drained();
  assert.deepEqual(done, ['eew', 'quake'], 'the EEW reached its last socket before the rest of the quake');
  for (const c of clients) {
    assert.deepEqual(await idsOf(c, 2), [quake.id, eew.id]);
    await noMoreMessages(c);
  }
});

test('an EEW writes first only the older telegrams each connection is due, by its filter', async (t) => {
  const env = await endpointFor(t, 2);
  const kinds: [string, DeliveryFilter][] = [
    ['all', filter],
    ['eew only', { ...filter, classifications: ['eew.forecast'] }],
    ['quakes only', { ...filter, classifications: ['telegram.earthquake'] }],
    ['VXSE51 and eew', { ...filter, types: ['VXSE51', 'VXSE45'] }],
  ];
  const kindOf = (socketId: number) => kinds[socketId % kinds.length]!;
  const clients = await openMany(env, 12, (socketId) => kindOf(socketId)[1]);
  const q53 = telegram('VXSE53');
  const q51 = telegram('VXSE51');
  const eew = telegram('VXSE45', 'eew.forecast');
  // Two ordinary telegrams queued (the first under way), then the EEW.
  for (const r of [q53, q51, eew]) env.hub.broadcast(r, []);
  await env.hub.drained();
  const expected: Record<string, unknown[]> = {
    all: [q53.id, q51.id, eew.id],
    'eew only': [eew.id],
    'quakes only': [q53.id, q51.id],
    'VXSE51 and eew': [q51.id, eew.id],
  };
  for (const [i, c] of clients.entries()) {
    const [kind] = kindOf(i + 1);
    assert.deepEqual(await idsOf(c, expected[kind]!.length), expected[kind], kind);
    await noMoreMessages(c);
  }
});

test('a connection that joins during a broadcast gets no telegram queued before it joined', async (t) => {
  const env = await endpointFor(t, 2);
  const clients = await openMany(env, 8);
  // As a resuming connection: attached, then joined once its catch-up has sent what came before.
  const late = env.hub.get(8)!;
  env.hub.remove(late);
  env.hub.attach(late);
  const quake = telegram('VXSE53');
  const eew = telegram('VXSE45', 'eew.forecast');
  env.hub.broadcast(quake, []);
  env.hub.join(late);
  env.hub.broadcast(eew, []);
  await env.hub.drained();
  for (const c of clients.slice(0, 7)) assert.deepEqual(await idsOf(c, 2), [quake.id, eew.id]);
  assert.deepEqual(await idsOf(clients[7]!, 1), [eew.id], 'its catch-up covered the quake');
  await noMoreMessages(clients[7]!);
});

test('a slow consumer is dropped with 4503 instead of growing memory; others keep receiving', async () => {
  const env = await startEndpoint({ maxBufferedBytes: 256 * 1024 });
  const [slow, fast] = await openMany(env, 2);
  // The slow client stops reading: the kernel buffers fill, then the server's queue grows.
  (slow!.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  const big = record({ body: Buffer.alloc(64 * 1024, 1) });
  let received = 0;
  const rounds = 400;
  for (let i = 0; i < rounds; i++) {
    env.hub.broadcast({ ...big, serial: big.serial + i }, []);
    // The fast client reads as it goes.
    assert.equal((await fast!.next()).type, 'data');
    received++;
    if (env.hub.get(1)?.closing ?? true) break;
  }
  assert.equal(env.hub.get(1)?.closing ?? true, true, 'the slow socket was dropped');
  const conn = env.hub.get(2);
  assert.ok(conn && !conn.closing, 'the fast socket is still served');
  (slow!.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  let last: Record<string, unknown> = {};
  for (;;) {
    last = await slow!.next();
    if (last.type !== 'data') break;
  }
  assert.deepEqual(last, {
    type: 'error',
    error: 'The connection cannot keep up with delivery; reconnect.',
    code: 4503,
    close: true,
  });
  assert.equal((await slow!.closed).code, 4503);
  assert.ok(received < rounds, 'dropped well before the end');
  fast!.ws.close();
  await env.stop();
});

test('quiet() waits until no broadcast was written for the quiet time, and never longer than its bound', async () => {
  const env = await startEndpoint({ chunkSize: 4 });
  const clients = await openMany(env, 8);
  const t0 = performance.now();
  await env.hub.quiet(100, 1000);
  assert.ok(performance.now() - t0 < 50, 'nothing written lately: at once');

  env.hub.broadcast(record({ type: 'VXSE53' }), []);
  const afterBroadcast = performance.now();
  await env.hub.quiet(100, 1000);
  const waited = performance.now() - afterBroadcast;
  assert.ok(
    waited >= 95 && waited < 600,
    `the quiet time after the broadcast (waited ${waited.toFixed(0)} ms)`,
  );

  // A broadcast every 30 ms keeps the hub busy: the wait ends at its bound.
  const busy = setInterval(() => env.hub.broadcast(record({ type: 'VXSE53' }), []), 30);
  try {
    env.hub.broadcast(record({ type: 'VXSE53' }), []);
    const started = performance.now();
    await env.hub.quiet(100, 300);
    const bounded = performance.now() - started;
    assert.ok(bounded >= 295 && bounded < 800, `ended by its bound (waited ${bounded.toFixed(0)} ms)`);
  } finally {
    clearInterval(busy);
  }
  for (const c of clients) c.ws.close();
  await env.stop();
});
