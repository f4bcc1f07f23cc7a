/**
 * Frames a client sends right after its handshake, while the server still redeems its ticket, are
 * answered like any later frame, once `start` has gone out: none is dropped.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/clock.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { newAccountSocket, TestClient } from '../support/realtime.ts';

let server: TestServer;
before(async () => {
  // No server ping comes during the test: every message is an answer to the client's frames.
  server = await startTestServer({ clock: new ManualClock(), config: { pingIntervalMs: 60_000 } });
});
after(() => server.close());

/** The next message, or a failure when none comes within 3 s (a dropped frame is never answered). */
function within<T>(message: Promise<T>): Promise<T> {
  const late = sleep(3000).then(() => Promise.reject(new Error('no answer within 3 s')));
  return Promise.race([message, late]);
}

test('a ping and a non-JSON frame sent before `start` are answered after it, in order', async () => {
  const client = new TestClient(
    await newAccountSocket(server, {
      classifications: ['telegram.earthquake'],
      scopes: ['socket.start', 'telegram.get.earthquake'],
    }),
  );
  await once(client.ws, 'open');
  client.send({ type: 'ping', pingId: 'early' });
  client.send('not json');
  assert.equal((await within(client.next())).type, 'start');
  assert.deepEqual(await within(client.next()), { type: 'pong', pingId: 'early' });
  assert.deepEqual(await within(client.next()), {
    type: 'error',
    error: 'The message is not valid JSON.',
    code: 4641,
    close: false,
  });
  client.ws.close();
  await client.closed;
});
