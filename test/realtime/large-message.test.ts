/**
 * A `data` message of a telegram near NAMAZU_MAX_TELEGRAM_BYTES (docs/realtime.md, "Delivery"): it
 * may sit queued whole while the client reads it, and the message after it does not drop the client
 * as a slow consumer.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { newAccountSocket, TestClient } from '../support/realtime.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const delivered = async () =>
  (await server.ctx.metrics.deliveryLatency.get()).values.find(
    (v) =>
      v.metricName === 'namazu_delivery_latency_seconds_count' &&
      v.labels.classification === 'telegram.earthquake',
  )?.value ?? 0;

test('a 14 MiB binary telegram, then a small one, reach a client that reads them late', async () => {
  const url = await newAccountSocket(server, {
    classifications: ['telegram.earthquake'],
    scopes: ['socket.start', 'telegram.get.earthquake'],
  });
  const client = await TestClient.pastStart(url, ['service.v2']);

  // The client stops reading: the 19 MB message (base64) outgrows the kernel's buffers and stays
  // queued in the server while the next telegram is sent.
  const socket = (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  socket.pause();
  const before = await delivered();
  const large = Buffer.concat([Buffer.from('IXAC41 RJTD 110000\r\r\nBUFR'), randomBytes(14 * 1024 * 1024)]);
  const small = Buffer.from('IXAC41 RJTD 110001\r\r\nBUFR\x00\x01');
  const ids: string[] = [];
  for (const raw of [large, small]) {
    const outcome = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
    assert.ok(outcome.ok, !outcome.ok ? outcome.reason : '');
    ids.push(outcome.stored.id);
  }
  await waitFor(async () => (await delivered()) >= before + 2, { message: 'both sent' });
  socket.resume();

  for (const [i, id] of ids.entries()) {
    let m = await client.next<{ type: string; id: string; body: string }>();
    while (m.type === 'ping') m = await client.next(); // a slow machine's test outlasts 30 s
    assert.equal(m.type, 'data', JSON.stringify(m).slice(0, 200));
    assert.equal(m.id, id);
    assert.equal(
      createHash('sha384').update(Buffer.from(m.body, 'base64')).digest('hex'),
      id,
      `message ${i}`,
    );
  }
  client.ws.close();
});
