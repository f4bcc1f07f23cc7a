/**
 * The query of the public streams as hostile or careless clients write it (docs/realtime.md
 * "Public streams"): what the public streams do not read (`appName`, credentials, unknown names) is
 * ignored the same way on the stream and on the WebSocket, repeated or not, and never ends in a
 * server error.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { publicClassifications: ['telegram.earthquake'] } });
});
after(() => server.close());

/** The status of a GET of the public stream with `query`; a stream is dropped once it answered. */
async function streamStatus(query: string): Promise<{ status: number; body: string }> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/v2/public/stream?${query}`, { signal: controller.signal });
  const body = res.headers.get('content-type')?.startsWith('application/json') ? await res.text() : '';
  controller.abort();
  return { status: res.status, body };
}

/** The first message of a public WebSocket opened with `query`, and how it closed when it did. */
async function firstMessage(query: string): Promise<{ type: string; error?: string }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v2/public/websocket?${query}`, [
    'service.v2',
  ]);
  ws.on('error', () => {});
  const first = await new Promise<{ type: string; error?: string }>((resolve) =>
    ws.once('message', (data) => resolve(JSON.parse(String(data)))),
  );
  ws.close();
  return first;
}

const UNREAD = [
  ['a long appName', `appName=${'x'.repeat(40)}`],
  ['appName repeated', 'appName=a&appName=b'],
  ['a credential repeated', 'key=a&key=b'],
  ['an unknown name repeated', '_=1&_=2'],
] as const;

test('what the public stream does not read is ignored, repeated or not, never a server error', async () => {
  for (const [what, query] of UNREAD) {
    const { status, body } = await streamStatus(`classifications=telegram.earthquake&${query}`);
    assert.equal(status, 200, `${what}: ${body}`);
  }
  await waitFor(
    async () => (await server.ctx.metrics.publicConnections.get()).values.every((v) => v.value === 0),
    {
      message: 'every stream released',
    },
  );
});

test('the public WebSocket ignores the same parameters as the stream', async () => {
  for (const [what, query] of UNREAD) {
    const first = await firstMessage(`classifications=telegram.earthquake&${query}`);
    assert.equal(first.type, 'start', `${what}: ${first.error}`);
  }
  // A field it reads, repeated, is refused as on the stream.
  const repeated = await firstMessage('test=no&test=including');
  assert.equal(repeated.type, 'error');
  assert.equal(repeated.error, 'Unexpected data of search query `test`.');
  assert.equal((await streamStatus('test=no&test=including')).status, 400);
});
