import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

// Attack: many connections announce a large body (or never finish their headers) and go quiet.
let server: TestServer;
before(async () => {
  server = await startTestServer({
    config: { requestTimeoutMs: 1500, headersTimeoutMs: 1000, maxUploadsPerAddress: 4, maxUploads: 100 },
  });
});
after(() => server.close());

interface Outcome {
  response: string;
  closedAfterMs: number;
}

/** Opens a connection, writes `head` and a little of the body, then waits for the server to close it. */
function holdOpen(head: string, bodyBytes = 1024): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(server.port, '127.0.0.1');
    let response = '';
    socket.on('data', (d) => (response += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }));
    socket.on('connect', () => {
      socket.write(head);
      if (bodyBytes > 0) socket.write(Buffer.alloc(bodyBytes, 0x41));
    });
    setTimeout(() => reject(new Error('connection still open after 10 s')), 10_000).unref();
  });
}

const upload = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/xml\r\n` +
  `Content-Length: ${4 * 1024 * 1024 - 1}\r\n\r\n`;

test('slow unauthenticated uploads are answered 401 before their body and closed', async () => {
  const rssBefore = process.memoryUsage().rss;
  const outcomes = await Promise.all([
    ...Array.from({ length: 25 }, () => holdOpen(upload('/admin/v1/telegrams'))),
    ...Array.from({ length: 25 }, () => holdOpen(upload('/v2/socket'))),
  ]);
  for (const o of outcomes) {
    assert.match(o.response, /^HTTP\/1\.1 401 /);
    assert.match(o.response, /\r\nconnection: close\r\n/i);
    assert.ok(o.closedAfterMs < 3000, `closed after ${o.closedAfterMs} ms`);
  }
  assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024);
});

test('authenticated slow uploads are capped per address and closed at the request time-out', async () => {
  const { account } = await server.createAccount({ admin: true });
  const key = await server.createApiKey(account.id, ['admin.telegram.ingest']);
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () => holdOpen(upload(`/admin/v1/telegrams?key=${key}`))),
  );
  const refused = outcomes.filter((o) => /^HTTP\/1\.1 429 /.test(o.response));
  assert.equal(refused.length, 6);
  for (const o of refused) {
    assert.match(o.response, /\r\nretry-after: 5\r\n/i);
    assert.match(o.response, /"message":"Too many requests\."/);
  }
  for (const o of outcomes) assert.ok(o.closedAfterMs < 4000, `closed after ${o.closedAfterMs} ms`);
});

test('connections that never finish their headers are closed at the header time-out', async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 50 }, () => holdOpen('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 0)),
  );
  for (const o of outcomes) assert.ok(o.closedAfterMs < 3500, `closed after ${o.closedAfterMs} ms`);
});
