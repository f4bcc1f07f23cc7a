/**
 * The heartbeat's pings spread over part of the interval (docs/realtime.md "Heartbeats"): a tick of
 * more connections than a slice pings them slice by slice, every slice the same pingId, each pong to
 * it valid; a connection gone before its slice holds up no other; stop() drops the slices to come.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { TestClient, startEndpoint } from '../support/realtime.ts';

const filter: DeliveryFilter = {
  classifications: ['eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};
// Slices 500 ms apart: the first slice arrives well within that on a loaded machine.
const SPREAD_MS = 1500;

/** `n` connections, opened one after another (the hub pings them in that order), and the endpoint. */
async function connections(t: TestContext, n: number) {
  const env = await startEndpoint({ heartbeat: { spreadMs: SPREAD_MS, pingsPerSlice: 2 } });
  t.after(async () => {
    env.heartbeat.stop();
    for (const conn of [...env.hub.connections()]) conn.terminate();
    await env.stop();
  });
  const clients: TestClient[] = [];
  for (let i = 1; i <= n; i++) {
    env.gate.tickets.set(`t${i}`, { socketId: i, filter, appName: null });
    clients.push(await TestClient.pastStart(env.url(`t${i}`)));
  }
  return { env, clients };
}

/** When each client's next message arrives (ms after `from`), and the message. */
function arrivals(clients: TestClient[], from: number) {
  return Promise.all(
    clients.map(async (c) => {
      const message = await c.next();
      return { ms: performance.now() - from, message };
    }),
  );
}

test('five connections in slices of two: pinged at 0, 1/3 and 2/3 of the spread, one pingId, each pong valid', async (t) => {
  const { env, clients } = await connections(t, 5);
  const ticked = performance.now();
  env.heartbeat.tick();
  const got = await arrivals(clients, ticked);
  const pingId = got[0]!.message.pingId;
  for (const { message } of got) assert.deepEqual(message, { type: 'ping', pingId });
  // Timers never fire early: each slice no sooner than its share of the spread.
  const third = SPREAD_MS / 3;
  assert.ok(
    got[0]!.ms < third && got[1]!.ms < third,
    `the first slice at once (${got[0]!.ms}, ${got[1]!.ms} ms)`,
  );
  for (const i of [2, 3])
    assert.ok(got[i]!.ms >= third - 1, `connection ${i} in the second slice (${got[i]!.ms} ms)`);
  assert.ok(got[4]!.ms >= 2 * third - 1, `the last connection in the third slice (${got[4]!.ms} ms)`);
  // The last slice's pong to the shared pingId keeps its connection, as the first's does.
  for (const c of [clients[0]!, clients[4]!]) {
    c.send({ type: 'pong', pingId });
    c.send({ type: 'ping', pingId: 'sync' });
    assert.deepEqual(await c.next(), { type: 'pong', pingId: 'sync' });
  }
  assert.equal([...env.hub.connections()].filter((c) => !c.closing).length, 5);
});

test('a connection gone before its slice holds up no other; stop() drops the slices still to come', async (t) => {
  const { env, clients } = await connections(t, 5);
  env.heartbeat.tick();
  // Connection 5 (third slice) leaves while the first slice is being read.
  clients[4]!.ws.close();
  await clients[4]!.closed;
  const got = await arrivals(clients.slice(0, 4), performance.now());
  for (const { message } of got) assert.equal(message.type, 'ping');
  // Stopped right after a tick: only the first slice goes out.
  env.heartbeat.tick();
  env.heartbeat.stop();
  assert.equal((await clients[0]!.next()).type, 'ping');
  await sleep(SPREAD_MS + 200);
  for (const c of clients.slice(1, 4)) {
    c.send({ type: 'ping', pingId: 'end' });
    const next = await c.next();
    if (c === clients[1]) assert.equal(next.type, 'ping', 'connection 2 is in the first slice');
    else assert.deepEqual(next, { type: 'pong', pingId: 'end' }, 'no ping after stop()');
  }
});
