/**
 * The bytes of GET /v2/stream on the wire: a broadcast writes each event as one HTTP chunk framed
 * once for every stream, straight to the socket (src/realtime/sse-connection.ts). Read here from a
 * raw TCP socket and parsed strictly — chunk sizes must match, keep-alive comments written by the
 * response itself must fall between whole events — for an HTTP/1.1 client (chunked) and an
 * HTTP/1.0 one (no chunks: the body is the events as they are, until the connection closes).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const EEW = readFileSync(fixture('official', '77_01_03_240613_VXSE45.xml'));

let server: TestServer;
let key: string;
before(async () => {
  // Keep-alive comments every 50 ms, so that they fall between (and race with) the broadcasts.
  server = await startTestServer({ config: { pingIntervalMs: 50 } });
  const { account } = await server.createAccount({ contracts: ['eew.forecast', 'websocket.plus5'] });
  key = await server.createApiKey(account.id, ['socket.start', 'eew.get.forecast']);
});
after(() => server.close());

let variant = 0;
/** Stores one distinct early warning, padded to `padding` bytes more; its id. */
async function ingestOne(padding: number): Promise<string> {
  const comment = `<!-- ${++variant} ${'x'.repeat(padding)} -->`;
  const out = await ingestTelegram(
    { db: server.ctx.db, bus: server.ctx.bus, telegrams: server.ctx.telegrams },
    Buffer.concat([EEW, Buffer.from(`\n${comment}\n`)]),
    { fileName: '77_01_03_240613_VXSE45.xml', receivedTime: Date.now() },
  );
  assert.ok(out.ok);
  return out.stored.id;
}

/** A stream request on a raw socket; everything the server sends is collected in `received`. */
function rawStream(version: '1.0' | '1.1'): { socket: Socket; received: () => Buffer } {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (b) => chunks.push(b));
  socket.write(
    `GET /v2/stream?classifications=eew.forecast&key=${key} HTTP/${version}\r\n` +
      `Host: 127.0.0.1:${port}\r\n\r\n`,
  );
  return { socket, received: () => Buffer.concat(chunks) };
}

/** Splits a response into its head and body; a chunked body is decoded strictly. */
function parse(raw: Buffer): { head: string; body: string; complete: boolean } {
  const split = raw.indexOf('\r\n\r\n');
  assert.ok(split > 0, 'no response head');
  const head = raw.subarray(0, split).toString('latin1');
  let rest = raw.subarray(split + 4);
  if (!/^transfer-encoding: chunked$/im.test(head)) return { head, body: rest.toString(), complete: true };
  const parts: Buffer[] = [];
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) return { head, body: Buffer.concat(parts).toString(), complete: false };
    const size = Number.parseInt(rest.subarray(0, line).toString('latin1'), 16);
    assert.ok(
      Number.isInteger(size),
      `bad chunk size line ${JSON.stringify(rest.subarray(0, 20).toString())}`,
    );
    if (rest.length < line + 2 + size + 2)
      return { head, body: Buffer.concat(parts).toString(), complete: false };
    parts.push(rest.subarray(line + 2, line + 2 + size));
    assert.equal(
      rest.subarray(line + 2 + size, line + 4 + size).toString(),
      '\r\n',
      'chunk not closed by CRLF',
    );
    rest = rest.subarray(line + 4 + size);
    if (size === 0) return { head, body: Buffer.concat(parts).toString(), complete: true };
  }
}

/**
 * The ids of the `data` events of a body; every block must be a whole event, a comment, or a
 * position (comments and one `id:` line, no data: docs/realtime.md "Server-sent events").
 */
function eventIds(body: string): string[] {
  const ids: string[] = [];
  const blocks = body.split('\n\n');
  blocks.pop(); // what follows the last blank line: nothing, or an event still arriving
  for (const block of blocks) {
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith(':') || /^id: [0-9a-f]{96}$/.test(l))) continue;
    assert.equal(lines[0], 'event: data', `not a whole event: ${block.slice(0, 80)}`);
    assert.match(lines[1]!, /^id: /);
    assert.match(lines[2]!, /^data: \{/);
    const data = JSON.parse(lines[2]!.slice('data: '.length)) as { id: string };
    assert.equal(lines[1], `id: ${data.id}`);
    ids.push(data.id);
  }
  return ids;
}

for (const version of ['1.1', '1.0'] as const) {
  test(`HTTP/${version}: broadcast events and keep-alive comments are whole, in order, framed right`, async () => {
    const stream = rawStream(version);
    try {
      await waitFor(() => stream.received().includes(': socket'));
      const { head } = parse(stream.received());
      assert.match(head, /^HTTP\/1\.1 200/);
      assert.match(head, /^content-type: text\/event-stream/im);
      assert.equal(/^transfer-encoding: chunked$/im.test(head), version === '1.1');
      // Small and large telegrams (the large ones span many TCP segments), with comments between.
      const sent: string[] = [];
      for (const padding of [0, 70_000, 10, 200_000, 0, 5_000]) {
        sent.push(await ingestOne(padding));
        await new Promise((r) => setTimeout(r, 30));
      }
      await waitFor(() => eventIds(parse(stream.received()).body).length === sent.length, {
        timeout: 15_000,
      });
      const { body } = parse(stream.received());
      assert.deepEqual(eventIds(body), sent);
      assert.ok(body.includes(': keep-alive\n'), 'a keep-alive comment came between the events');
    } finally {
      stream.socket.destroy();
    }
  });
}
