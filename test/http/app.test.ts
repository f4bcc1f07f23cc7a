import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { testFetch } from '../support/fetch.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

function assertEnvelopeError(json: unknown, code: number, message: string) {
  const body = json as Record<string, unknown>;
  assert.match(body.responseId as string, /^[0-9a-f]{16}$/);
  assert.match(body.responseTime as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(body.status, 'error');
  assert.deepEqual(body.error, { message, code });
}

test('liveness and readiness', async () => {
  const live = await testFetch(`${server.url}/healthz`);
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { status: 'ok' });
  const ready = await testFetch(`${server.url}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ready' });
});

test('an unknown path is a 404 in the envelope', async () => {
  const res = await testFetch(`${server.url}/v2/nothing-here?x=1`);
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type')!, /application\/json/);
  assertEnvelopeError(await res.json(), 404, 'Not found.');
});

test('a known path with another method is a 405 in the envelope', async () => {
  const res = await testFetch(`${server.url}/healthz`, { method: 'DELETE' });
  assert.equal(res.status, 405);
  assertEnvelopeError(await res.json(), 405, 'Method not allowed.');
});

test('Prometheus metrics list HTTP latency by route', async () => {
  await testFetch(`${server.url}/healthz`);
  const res = await testFetch(`${server.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /text\/plain/);
  const text = await res.text();
  assert.match(
    text,
    /namazu_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/,
  );
  assert.match(text, /# TYPE namazu_websocket_open_connections gauge/);
  assert.match(text, /# TYPE namazu_telegrams_ingested_total counter/);
  assert.match(text, /# TYPE namazu_delivery_latency_seconds histogram/);
});

test('CORS preflight is answered for any origin', async () => {
  const res = await testFetch(`${server.url}/v2/telegram`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization,dpop',
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.match(res.headers.get('access-control-allow-headers')!, /DPoP/);
});

test('CORS preflight admits Last-Event-ID for the stream (a page of another origin resuming it)', async () => {
  const res = await testFetch(`${server.url}/v2/stream`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization,last-event-id',
    },
  });
  assert.equal(res.status, 204);
  assert.match(res.headers.get('access-control-allow-headers')!, /Last-Event-ID/);
});
