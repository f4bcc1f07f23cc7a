import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

// Probes (docs/security.md "Standing probes"): requests Node's HTTP parser refuses before any route
// sees them get the service's own error envelope, never a framework body; answers holding an
// account's data are not kept by any cache, whichever way the credential came.
let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { headersTimeoutMs: 1000 } });
});
after(() => server.close());

/** Writes `raw` on a fresh connection and resolves with everything answered until the close. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let response = '';
    socket.on('data', (d) => (response += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(response));
    socket.on('connect', () => socket.write(raw));
    setTimeout(() => reject(new Error('connection still open after 10 s')), 10_000).unref();
  });
}

function envelopeOf(response: string, status: number, message: string): void {
  assert.match(response, new RegExp(`^HTTP/1\\.1 ${status} `), response.slice(0, 200));
  assert.match(response, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
  const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  assert.equal(body.status, 'error');
  assert.deepEqual(body.error, { message, code: status });
  assert.equal(typeof body.responseId, 'string');
}

test('a malformed request line is a 400 envelope', async () => {
  envelopeOf(await exchange('GARBAGE\r\n\r\n'), 400, 'Bad request.');
  envelopeOf(await exchange('GET / HTTP/9.9\r\nHost: x\r\n\r\n'), 400, 'Bad request.');
});

test('a WebSocket upgrade whose target is no URL is refused, and the server goes on serving', async () => {
  for (const target of ['//[', 'http://[', 'http://a:b:c/', 'http://%zz/']) {
    const answer = await exchange(
      `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 4\d\d /, `${target}: ${answer.slice(0, 200)}`);
  }
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});

test('over-long headers are a 431 envelope', async () => {
  const response = await exchange(
    `GET /v2/telegram HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  envelopeOf(response, 431, 'Request header fields too large.');
});

test('headers not finished in time are a 408 envelope', async () => {
  envelopeOf(await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a'), 408, 'Request timeout.');
});

test('authenticated data-API answers are private and not stored, with a key in the URL too', async () => {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, ['contract.list', 'telegram.list', 'socket.list']);
  const basic = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  for (const path of ['/v2/contract', '/v2/telegram', '/v2/socket']) {
    for (const [url, headers] of [
      [`${server.url}${path}?key=${key}`, {}],
      [`${server.url}${path}`, basic],
    ] as const) {
      const res = await fetch(url, { headers });
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', url);
      await res.arrayBuffer();
    }
  }
});
