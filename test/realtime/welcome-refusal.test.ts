/**
 * A refused WebSocket (src/realtime/welcome.ts: no ticket, an unknown one, a full limit…) whose client
 * never answers the close frame is cut off after the close grace, as an open connection is
 * (docs/realtime.md "Fan-out"), not after the 30 s `ws` would wait.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, beforeEach, test } from 'node:test';
import { startEndpoint } from '../support/realtime.ts';

const CLOSE_GRACE_MS = 300;

let env: Awaited<ReturnType<typeof startEndpoint>>;
beforeEach(async () => {
  env = await startEndpoint({ closeGraceMs: CLOSE_GRACE_MS });
});
afterEach(() => env.stop());

/**
 * A raw client that completes the handshake on `path`, reads what it is sent and never answers the
 * close frame: what it received, and how long after the 101 the server ended the connection.
 */
async function refusedWithoutAnswer(path: string): Promise<{ received: string; heldMs: number }> {
  const { port } = new URL(env.base);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  let received = '';
  let upgradedAt = 0;
  socket.on('data', (chunk: Buffer) => {
    if (!upgradedAt) upgradedAt = Date.now();
    received += chunk.toString('latin1');
  });
  // Ended by the server within twice the grace, or the test fails instead of waiting for ws's 30 s.
  const giveUp = setTimeout(() => socket.destroy(new Error('still open')), CLOSE_GRACE_MS * 2 + 2000);
  try {
    await once(socket, 'close');
  } catch {
    // 'error' (a reset) also ends it
  }
  clearTimeout(giveUp);
  return { received, heldMs: Date.now() - upgradedAt };
}

test('a client refused for a missing ticket that does not answer the close is cut off after the grace', async () => {
  const { received, heldMs } = await refusedWithoutAnswer('/v2/websocket');
  assert.match(received, /^HTTP\/1\.1 101 /);
  assert.match(received, /"code":4400/, 'the error message was sent');
  assert.ok(heldMs >= CLOSE_GRACE_MS - 50, `it had its grace to answer (${heldMs} ms)`);
  assert.ok(heldMs < CLOSE_GRACE_MS + 2000, `cut off after the grace (${heldMs} ms)`);
});

test('a client refused for an unknown ticket that does not answer the close is cut off after the grace', async () => {
  const { received, heldMs } = await refusedWithoutAnswer('/v2/websocket?ticket=unknown');
  assert.match(received, /"code":4404/, 'the error message was sent');
  assert.ok(heldMs >= CLOSE_GRACE_MS - 50 && heldMs < CLOSE_GRACE_MS + 2000, `held ${heldMs} ms`);
});
