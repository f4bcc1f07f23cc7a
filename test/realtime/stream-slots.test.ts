/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are inspected loosely */
/**
 * The connection slots of `GET /v2/stream` and `GET /v2/public/stream` (docs/realtime.md
 * "Server-sent events"): a HEAD is answered at once and holds none, and a stream whose session
 * could not be opened gives its slot back at once.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let authorization: string;
before(async () => {
  server = await startTestServer({
    config: { publicClassifications: ['eew.forecast'], publicMaxPerAddress: 1, publicConnectsPerMinute: 2 },
  });
  // One contract: a connection limit of 1.
  const { account } = await server.createAccount({ contracts: ['eew.forecast'] });
  const key = await server.createApiKey(account.id, ['socket.start', 'socket.list', 'eew.get.forecast']);
  authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
});
after(() => server.close());

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Drops the connection (a stream's). */
  close(): void;
}

/**
 * One request on a connection of its own (fetch's pool may keep a spare connection that holds the
 * server's close): the answer once its headers arrived, with its body when `whole` (it must end
 * within 3 s). A request that gets no answer in 3 s fails.
 */
function send(method: string, path: string, headers: Record<string, string>, whole = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      const answer = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        close: () => req.destroy(),
      };
      if (!whole) return resolve(answer);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (answer.body += chunk));
      res.on('end', () => resolve(answer));
    });
    req.setTimeout(3000, () => req.destroy(new Error(`${method} ${path}: no answer in 3 s`)));
    req.on('error', reject);
    req.end();
  });
}

const STREAM = '/v2/stream?classifications=eew.forecast';
const PUBLIC_STREAM = '/v2/public/stream?classifications=eew.forecast';

async function sessions(): Promise<any[]> {
  const res = await send('GET', '/v2/socket?limit=100', { authorization });
  return (JSON.parse(res.body) as { items: any[] }).items;
}

async function publicStreams(): Promise<number> {
  const m = await server.ctx.metrics.publicConnections.get();
  return m.values.find((v) => v.labels.transport === 'stream')?.value ?? 0;
}

test('HEAD /v2/stream answers the stream headers at once, after the GET checks, and starts no session', async () => {
  const before = (await sessions()).length;
  for (let i = 0; i < 3; i++) {
    const head = await send('HEAD', STREAM, { authorization });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(head.headers['cache-control'], 'no-store');
    assert.equal(head.body, '');
  }
  assert.equal((await send('HEAD', STREAM, {})).status, 401, 'credentials checked');
  assert.equal((await send('HEAD', `${STREAM}&test=maybe`, { authorization })).status, 400, 'query checked');
  assert.equal((await sessions()).length, before, 'no session was started');
  // The account's only slot is free.
  const stream = await send('GET', STREAM, { authorization }, false);
  assert.equal(stream.status, 200);
  stream.close();
});

test('HEAD /v2/public/stream answers at once and takes no anonymous slot nor a count of the rate', async () => {
  for (let i = 0; i < 4; i++) {
    const head = await send('HEAD', PUBLIC_STREAM, {});
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'text/event-stream; charset=utf-8');
  }
  assert.equal(await publicStreams(), 0);
  // One per address, two a minute: four HEADs took neither.
  const stream = await send('GET', PUBLIC_STREAM, {}, false);
  assert.equal(stream.status, 200);
  assert.equal(await publicStreams(), 1);
  stream.close();
});

test('a stream whose session fails to open gives its slot back at once', async () => {
  const allClosed = async () => (await sessions()).every((s) => s.status === 'closed');
  await waitFor(allClosed, { message: 'the streams of the tests before are closed' });
  // The store fails the redemption (the session's move to `open`), once.
  await server.ctx.db.exec(`
    CREATE FUNCTION refuse_open() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'planted failure of the redemption'; END $$;
    CREATE TRIGGER refuse_open BEFORE UPDATE ON socket_sessions
      FOR EACH ROW WHEN (NEW.status = 'open') EXECUTE FUNCTION refuse_open();`);
  let failed: Answer;
  try {
    failed = await send('GET', STREAM, { authorization });
  } finally {
    await server.ctx.db.exec(`DROP TRIGGER refuse_open ON socket_sessions; DROP FUNCTION refuse_open();`);
  }
  assert.ok(failed.status >= 500, `the failure is the server's (${failed.status})`);
  assert.ok(await allClosed(), 'the session the failed stream started is closed');
  // The account's only slot is free at once, not after the ticket's 300 s.
  const stream = await send('GET', STREAM, { authorization }, false);
  assert.equal(stream.status, 200);
  stream.close();
});
