import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { textFrame } from '../../src/realtime/frame.ts';
import { writeFrame } from '../../src/realtime/raw-write.ts';

/** A server socket and the client at the other end, collecting every text message it receives. */
async function pair(perMessageDeflate: boolean) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate });
  await once(wss, 'listening');
  const accepted = once(wss, 'connection') as Promise<[WebSocket]>;
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
    perMessageDeflate,
  });
  const received: string[] = [];
  client.on('message', (data: Buffer, isBinary: boolean) => {
    assert.equal(isBinary, false);
    received.push(data.toString());
  });
  await once(client, 'open');
  const [server] = await accepted;
  const close = async () => {
    client.close();
    await once(client, 'close');
    wss.close();
  };
  return { server, received, close };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

test('ws still has the internals that writeFrame reads', async () => {
  const { server, close } = await pair(false);
  const internals = server as unknown as { _socket: unknown; _sender: { _state: unknown; _queue: unknown } };
  assert.ok(internals._socket, 'ws._socket');
  assert.equal(typeof (internals._socket as { write: unknown }).write, 'function');
  assert.equal(internals._sender._state, 0, 'an idle sender has _state 0');
  assert.ok(Array.isArray(internals._sender._queue), 'ws._sender._queue');
  await close();
});

test('a pre-built frame arrives as one text message, at every payload length class', async () => {
  const { server, received, close } = await pair(false);
  const payloads = [
    '{"type":"data"}',
    'x'.repeat(125),
    'y'.repeat(126),
    'z'.repeat(65_535),
    'w'.repeat(70_000),
  ];
  for (const p of payloads) assert.equal(writeFrame(server, textFrame(Buffer.from(p))), true);
  await until(() => received.length === payloads.length);
  assert.deepEqual(received, payloads);
  await close();
});

test('while ws is busy compressing, writeFrame declines so frames never interleave', async () => {
  const { server, received, close } = await pair(true);
  const big = 'a'.repeat(100_000);
  // Compressed asynchronously: the sender is busy until zlib answers.
  server.send(big, { compress: true });
  const next = Buffer.from('after');
  assert.equal(writeFrame(server, textFrame(next)), false);
  server.send(next, { binary: false, compress: false });
  await until(() => received.length === 2);
  assert.deepEqual(received, [big, 'after']);
  await close();
});
