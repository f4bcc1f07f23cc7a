import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { WebSocket } from 'ws';
import { Connection } from '../../src/realtime/connection.ts';
import { MAX_INVALID_FRAMES } from '../../src/realtime/welcome.ts';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { TestClient, startEndpoint } from '../support/realtime.ts';
import { waitFor } from '../support/wait.ts';

const filter: DeliveryFilter = {
  classifications: ['telegram.earthquake'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};

let env: Awaited<ReturnType<typeof startEndpoint>>;
let nextId = 1;
const CLOSE_GRACE_MS = 500;
beforeEach(async () => {
  env = await startEndpoint({ maxBufferedBytes: 64 * 1024, closeGraceMs: CLOSE_GRACE_MS });
});
afterEach(() => env.stop());

function ticketFor(): string {
  const socketId = nextId++;
  const ticket = `T${socketId}`;
  env.gate.tickets.set(ticket, { socketId, filter, appName: 'flood' });
  return ticket;
}

test(`the ${MAX_INVALID_FRAMES}th invalid frame closes the connection with 4641`, async () => {
  const client = new TestClient(env.url(ticketFor()));
  await client.next(); // start
  for (let i = 0; i < MAX_INVALID_FRAMES; i++) client.send('x');
  for (let i = 1; i <= MAX_INVALID_FRAMES; i++) {
    const err = await client.next();
    assert.deepEqual(err, {
      type: 'error',
      error: 'The message is not valid JSON.',
      code: 4641,
      close: i === MAX_INVALID_FRAMES,
    });
  }
  assert.deepEqual(await client.closed, { code: 4641, reason: 'The message is not valid JSON.' });
});

test('four clients that flood invalid frames and never read are all closed, memory bounded', async () => {
  const rssBefore = process.memoryUsage().rss;
  const attackers = Array.from({ length: 4 }, () => {
    const ws = new WebSocket(env.url(ticketFor()), { perMessageDeflate: false });
    ws.on('error', () => {});
    ws.on('open', () => {
      // Stop reading: the server's replies pile up in its send queue if nothing bounds them.
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      const frame = Buffer.from('x');
      for (let i = 0; i < 20_000; i++) ws.send(frame);
    });
    return ws;
  });
  try {
    // Every attacker's server-side connection is closing (its close frame queued) or gone.
    await waitFor(() => {
      const open = [...env.hub.connections()];
      return open.length + env.gate.closedIds.length === 4 && open.every((c) => c.closing);
    });
    for (const conn of env.hub.connections())
      assert.ok(conn instanceof Connection && conn.ws.bufferedAmount < 64 * 1024 + 4096);
    assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024);
  } finally {
    for (const ws of attackers) ws.terminate();
  }
});

test('a flooding client that never reads is cut off once the close grace has passed', async () => {
  const ws = new WebSocket(env.url(ticketFor()), { perMessageDeflate: false });
  ws.on('error', () => {});
  await new Promise((resolve) => ws.once('open', resolve));
  // It never reads, so it never answers the server's close frame: ws alone would wait 30 s.
  (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  for (let i = 0; i < MAX_INVALID_FRAMES; i++) ws.send('x');
  try {
    await waitFor(() => [...env.hub.connections()].some((c) => c.closing));
    const closingSince = Date.now();
    await waitFor(() => env.gate.closedIds.length === 1, { timeout: CLOSE_GRACE_MS + 2000 });
    assert.ok(Date.now() - closingSince >= CLOSE_GRACE_MS - 100, 'the peer had its grace to answer');
    assert.equal([...env.hub.connections()].length, 0);
  } finally {
    ws.terminate();
  }
});
