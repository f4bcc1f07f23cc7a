import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { startHarness, type Harness } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ listen: false });
});
after(() => h.close());

const inject = (server: TestServer, o: InjectOptions) => server.app.inject(o);

test('/metrics answers loopback only: not another address, not through an untrusted proxy', async () => {
  const { server } = h;
  assert.equal((await inject(server, { url: '/metrics', remoteAddress: '127.0.0.1' })).statusCode, 200);
  assert.equal((await inject(server, { url: '/metrics', remoteAddress: '203.0.113.9' })).statusCode, 404);
  const proxied = await inject(server, {
    url: '/metrics',
    remoteAddress: '127.0.0.1',
    headers: { 'x-forwarded-for': '203.0.113.9' },
  });
  assert.equal(proxied.statusCode, 404);
  assert.doesNotMatch(proxied.body, /namazu_|nodejs_/);
});

test('/metrics with NAMAZU_METRICS_TOKEN answers the token from anywhere, nothing else', async () => {
  const server = await startTestServer({ listen: false, config: { metricsToken: 'metrics-secret-1' } });
  try {
    const none = await inject(server, { url: '/metrics', remoteAddress: '127.0.0.1' });
    assert.equal(none.statusCode, 401);
    const wrong = await inject(server, {
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-secret-2' },
    });
    assert.equal(wrong.statusCode, 401);
    const right = await inject(server, {
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { authorization: 'Bearer metrics-secret-1' },
    });
    assert.equal(right.statusCode, 200);
    assert.match(right.body, /namazu_http_request_duration_seconds/);
  } finally {
    await server.close();
  }
});

test('a Host-derived issuer is never put in a shared cache', async () => {
  const res = await inject(h.server, {
    url: '/.well-known/oauth-authorization-server',
    headers: { host: 'evil.example' },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(JSON.parse(res.body).issuer, 'http://evil.example');
  assert.match(String(res.headers['cache-control']), /^private/);
  assert.match(String(res.headers.vary), /Host/i);

  const configured = await startTestServer({ listen: false, config: { authUrl: 'https://auth.example.jp' } });
  try {
    const fixed = await inject(configured, {
      url: '/.well-known/oauth-authorization-server',
      headers: { host: 'evil.example' },
    });
    assert.equal(JSON.parse(fixed.body).issuer, 'https://auth.example.jp');
    assert.match(String(fixed.headers['cache-control']), /^public/);
  } finally {
    await configured.close();
  }
});

test('authorization errors never echo parameter names or values', async () => {
  const c1 = h.clients.C1.client;
  const query =
    `client_id=${encodeURIComponent(c1.clientId)}&redirect_uri=${encodeURIComponent('https://app.example/cb')}` +
    '&state=s&response_type=code';
  const attacks = [
    `${query}&scope=telegram.list&%0D%0ASet-Cookie%3A%E6%97%A5=1&%0D%0ASet-Cookie%3A%E6%97%A5=2`,
    `${query}&scope=telegram.list%20admin.telegram.ingest`,
    `${query}&scope=telegram.list%20x%0Dy`,
  ];
  for (const q of attacks) {
    const res = await inject(h.server, { url: `/account/oauth2/v1/auth?${q}` });
    assert.ok(res.statusCode >= 300 && res.statusCode < 400, `${res.statusCode} ${res.body.slice(0, 200)}`);
    const location = new URL(String(res.headers.location));
    const description = location.searchParams.get('error_description')!;
    assert.match(description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    assert.doesNotMatch(description, /Set-Cookie|admin\.telegram\.ingest|x\ry/);
  }
});

test('admin ingest refuses a reception time before 2000 or more than a day ahead', async () => {
  const { account } = await h.server.createAccount({ admin: true });
  const key = await h.server.createApiKey(account.id, ['admin.telegram.ingest']);
  for (const when of ['+275760-09-13T00:00:00Z', '1999-12-31T23:59:59Z', '2200-01-01T00:00:00Z']) {
    const res = await inject(h.server, {
      method: 'POST',
      url: `/admin/v1/telegrams?key=${key}&receivedTime=${encodeURIComponent(when)}`,
      headers: { 'content-type': 'application/xml' },
      payload: '<Report/>',
    });
    assert.equal(res.statusCode, 400, when);
    assert.equal(JSON.parse(res.body).error.message, 'Unexpected data of search query `receivedTime`.');
  }
});
