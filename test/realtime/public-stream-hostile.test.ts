/**
 * The public streams against clients that do not play along (docs/realtime.md "Public streams",
 * "Server-sent events"): a reader that never reads is cut off as a slow consumer and gives its slot
 * back while the others keep receiving; an X-Forwarded-For a client writes itself does not let it
 * escape the per-address cap; a start that makes early warnings public says so in the log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { WebSocket } from 'ws';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { SseClient } from '../support/sse.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

async function openStreams(into: TestServer): Promise<number> {
  const m = await into.ctx.metrics.publicConnections.get();
  return m.values.find((v) => v.labels.transport === 'stream')?.value ?? 0;
}

/** The status of a GET of `url` on a connection of its own, which stays open until `close`. */
function openGet(url: string, headers: Record<string, string>): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    }).on('error', reject);
  });
}

test('a public stream that never reads is cut off as a slow consumer and gives its slot back; a reader beside it receives every telegram', async () => {
  // 1 MiB telegrams: the slow-consumer bound is then 2 MiB + 2 MiB, outgrown in a few dozen.
  const server = await startTestServer({
    config: { publicClassifications: ['telegram.earthquake'], maxTelegramBytes: 1 << 20 },
  });
  try {
    const reader = new SseClient(`${server.url}/v2/public/stream`);
    assert.equal(await reader.opened, 200);
    const { port } = new URL(server.url);
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.on('error', () => {});
    stalled.write('GET /v2/public/stream HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(async () => (await openStreams(server)) === 2, { message: 'both streams open' });
    stalled.pause();

    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      // BUFR first: a random body that began with `<` would be read, and refused, as XML.
      const raw = Buffer.concat([
        Buffer.from(`IXAC41 RJTD 11${String(i).padStart(4, '0')}\r\r\nBUFR`),
        randomBytes(1_000_000),
      ]);
      const out = await ingestTelegram(server.ctx, raw, { receivedTime: Date.now() });
      assert.ok(out.ok, out.ok ? '' : out.reason);
      ids.push(out.stored.id);
    }
    // Ended, then destroyed after the close grace (5 s) since it takes nothing more.
    await waitFor(async () => (await openStreams(server)) === 1, {
      message: 'the stalled stream released',
      timeout: 15_000,
    });
    await waitFor(() => reader.data().length === ids.length, { message: 'every telegram to the reader' });
    assert.deepEqual(
      reader.data().map((d) => d.id),
      ids,
    );
    reader.abort();
    stalled.destroy();
  } finally {
    await server.close();
  }
});

test("without NAMAZU_TRUST_PROXY a client's X-Forwarded-For does not escape the per-address cap, on the stream nor the socket", async () => {
  const server = await startTestServer({
    config: { publicClassifications: ['telegram.earthquake'], publicMaxPerAddress: 1 },
  });
  try {
    const url = `${server.url}/v2/public/stream`;
    const first = await openGet(url, { 'x-forwarded-for': '192.0.2.1' });
    assert.equal(first.status, 200);
    const second = await openGet(url, { 'x-forwarded-for': '192.0.2.2' });
    assert.equal(second.status, 429, 'the peer holds its cap whatever the header names');
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v2/public/websocket`, ['service.v2'], {
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    socket.on('error', () => {});
    const closed = await new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    assert.equal(closed, 4409);
    first.close();
  } finally {
    await server.close();
  }
});

test('a start with an early-warning classification public logs the documented warning; one without does not', async () => {
  for (const [publicOnes, warns] of [
    [['eew.forecast', 'telegram.earthquake'], true],
    [['telegram.earthquake'], false],
  ] as const) {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const server = await startTestServer({
      config: { publicClassifications: [...publicOnes] },
      logger: pino({ level: 'info' }, sink),
      listen: false,
    });
    try {
      const warning = lines.find(
        (l) => l.level === 40 && String(l.msg).startsWith('early warnings are public'),
      );
      assert.equal(Boolean(warning), warns, JSON.stringify(lines.filter((l) => l.level === 40)));
      if (warning) assert.deepEqual(warning.classifications, ['eew.forecast']);
    } finally {
      await server.close();
    }
  }
});
