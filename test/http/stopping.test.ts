import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { heldStop, startTestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

// While the app closes (docs/operations.md "Stopping"), requests that reach it are still answered,
// each on a connection then closed, so that a proxy sends the next one to another node; a WebSocket
// upgrade is refused with 503, not taken for a path that does not exist.

test('during a stop, a request is answered with Connection: close, and a WebSocket upgrade gets 503', async () => {
  const stop = heldStop();
  const server = await startTestServer({ plugins: [stop.plugin] });
  const closed = server.close();
  try {
    await waitFor(stop.holding, { message: 'the stop to reach the held step' });

    const answered = await fetch(`${server.url}/healthz`);
    assert.equal(answered.status, 200);
    assert.deepEqual(await answered.json(), { status: 'ok' });
    assert.equal(answered.headers.get('connection'), 'close');

    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v2/websocket?ticket=x`);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      socket.on('open', () => reject(new Error('the upgrade was taken during the stop')));
      socket.on('error', () => resolve(undefined));
    });
    socket.terminate();
    assert.equal(status, 503);
  } finally {
    stop.release();
    await closed;
  }
});

test('a connection that has sent nothing (a speculative one) does not hold a stop', async () => {
  // The idle time-out a silent connection would otherwise be held for: far past the check below.
  const server = await startTestServer({ config: { idleTimeoutMs: 120_000 } });
  const silent = connect(server.port, '127.0.0.1');
  silent.on('error', () => {});
  await new Promise((resolve) => silent.once('connect', resolve));
  const closedBy = new Promise<void>((resolve) => silent.once('close', () => resolve()));
  const began = Date.now();
  await server.close();
  const took = Date.now() - began;
  assert.ok(took < 10_000, `the stop took ${took} ms`);
  await closedBy;
});
