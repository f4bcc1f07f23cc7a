import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { TestClient, record, startEndpoint } from '../support/realtime.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake', 'eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

async function openMany(env: Awaited<ReturnType<typeof startEndpoint>>, n: number) {
  const clients: TestClient[] = [];
  for (let i = 1; i <= n; i++) {
    env.gate.tickets.set(`t${i}`, { socketId: i, filter, appName: null });
    clients.push(new TestClient(env.url(`t${i}`)));
  }
  for (const c of clients) assert.equal((await c.next()).type, 'start');
  return clients;
}

test('an EEW overtakes a broadcast still under way; each client gets each telegram once', async () => {
  const env = await startEndpoint({ chunkSize: 4 });
  const clients = await openMany(env, 20);
  const quake = record({ type: 'VXSE53' });
  const eew = record({ type: 'VXSE45', classification: 'eew.forecast' });
  env.hub.broadcast(quake, []); // the first 4 sockets get it at once, the rest on later turns
  env.hub.broadcast(eew, []);
  await env.hub.drained();
  const firsts: string[] = [];
  for (const c of clients) {
    const a = await c.next();
    const b = await c.next();
    assert.deepEqual([a.id, b.id].sort(), [quake.id, eew.id].sort());
    firsts.push(a.id as string);
  }
  assert.deepEqual(
    firsts.slice(0, 4).every((id) => id === quake.id),
    true,
  );
  assert.ok(
    firsts.slice(4).every((id) => id === eew.id),
    'EEW first for every socket not yet reached',
  );
  for (const c of clients) c.ws.close();
  await env.stop();
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
