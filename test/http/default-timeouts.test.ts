// The default time-outs (docs/security.md "Requests and connections") reach the HTTP server, and
// the default header time-out closes a connection that never finishes its headers, however slowly
// it keeps sending (test/http/slow-requests.test.ts checks the same with short settings).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { defaults } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('the HTTP server runs with the default time-outs', () => {
  const http = server.app.server;
  const d = defaults();
  assert.equal(http.headersTimeout, d.headersTimeoutMs);
  assert.equal(http.requestTimeout, d.requestTimeoutMs);
  assert.equal(http.keepAliveTimeout, d.keepAliveTimeoutMs);
  assert.equal(http.timeout, d.idleTimeoutMs);
});

test('a connection that drips its headers is closed at the default header time-out', async () => {
  const { headersTimeoutMs } = defaults();
  const closedAfterMs = await new Promise<number>((resolve, reject) => {
    const started = Date.now();
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    // One byte a second: never idle, never done.
    const drip = setInterval(() => socket.writable && socket.write('a'), 1000);
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
    socket.on('close', () => {
      clearInterval(drip);
      resolve(Date.now() - started);
    });
    setTimeout(
      () => reject(new Error('still open 5 s after the header time-out')),
      headersTimeoutMs + 5000,
    ).unref();
  });
  assert.ok(
    closedAfterMs >= headersTimeoutMs - 100,
    `closed after ${closedAfterMs} ms: not before the time-out`,
  );
  // Time-outs are checked once a second (http/app.ts).
  assert.ok(closedAfterMs < headersTimeoutMs + 3000, `closed after ${closedAfterMs} ms`);
});
