/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are inspected loosely */
/**
 * The connection slots of `GET /v2/stream` and `GET /v2/public/stream` (docs/realtime.md
 * "Server-sent events"): a HEAD is answered at once and holds none, and a stream whose session
 * could not be opened gives its slot back at once.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
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

test('a stream still being opened when the server begins to stop is not served after its connections were closed', async () => {
  const stopping = await startTestServer();
  let closed: Promise<void> | null = null;
  const clients: ReturnType<typeof httpRequest>[] = [];
  try {
    const { account } = await stopping.createAccount({ contracts: ['eew.forecast'] });
    const key = await stopping.createApiKey(account.id, ['socket.start', 'eew.get.forecast']);
    // The session's move to `open` takes a second: the stop begins meanwhile.
    await stopping.ctx.db.exec(`
      CREATE FUNCTION slow_open() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
      CREATE TRIGGER slow_open BEFORE UPDATE ON socket_sessions
        FOR EACH ROW WHEN (NEW.status = 'open') EXECUTE FUNCTION slow_open();`);
    const answer = new Promise<{ status: number; body: Promise<string> }>((resolve, reject) => {
      const req = httpRequest(
        `${stopping.url}${STREAM}`,
        { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          const ended = new Promise<string>((done) => res.on('close', () => done(body)));
          resolve({ status: res.statusCode ?? 0, body: ended });
        },
      );
      clients.push(req);
      req.on('error', reject);
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const startedAt = Date.now();
    closed = stopping.close();
    // The client keeps its side open: the stop must not wait for it.
    const stopped = await Promise.race([
      closed.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000)),
    ]);
    const { status, body } = await answer;
    assert.ok(stopped, `the stop waited ${Date.now() - startedAt} ms for a stream opened during it`);
    if (status === 200) {
      // Served before the real-time connections were closed (the embedded database runs the stop's
      // statements after the stream's): closed with them, 4503.
      assert.match(
        await body,
        /event: error\ndata: \{"type":"error","error":"[^"]*","code":4503,"close":true\}/,
      );
    } else assert.equal(status, 503, 'refused: the server is stopping');
  } finally {
    for (const req of clients) req.destroy();
    await (closed ?? stopping.close());
  }
});

test('a stream asked for by an upgrade request gives its slot back as soon as its client goes away', async () => {
  const upgraded = await startTestServer({
    config: { publicClassifications: ['eew.forecast'], publicMaxPerAddress: 1 },
  });
  try {
    const { account } = await upgraded.createAccount({ contracts: ['eew.forecast'] });
    const key = await upgraded.createApiKey(account.id, ['socket.start', 'eew.get.forecast']);
    const auth = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    const { port } = new URL(upgraded.url);
    // An upgrade the WebSocket endpoint does not take is answered by the app as a request: here, the
    // stream. Its client reads the first line, then goes away.
    const openAndLeave = (path: string, greeting: string, headers: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('error', reject);
        socket.on('data', (chunk) => {
          text += chunk.toString();
          if (!text.includes(greeting)) return;
          socket.destroy();
          resolve(text);
        });
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
            `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${headers}\r\n`,
        );
      });
    const admitted = (path: string, headers: Record<string, string>) =>
      waitFor(
        () =>
          new Promise<boolean>((resolve, reject) => {
            const req = httpRequest(`${upgraded.url}${path}`, { headers, agent: false }, (res) => {
              req.destroy();
              resolve(res.statusCode === 200);
            });
            req.on('error', reject);
            req.end();
          }),
        // Well within the keep-alive (15 s), whose writes would find the client gone at last.
        { timeout: 3000, message: `${path} admitted again` },
      );
    assert.match(await openAndLeave(STREAM, ': socket', `Authorization: ${auth}\r\n`), /^HTTP\/1.1 200/);
    await admitted(STREAM, { authorization: auth });
    assert.match(await openAndLeave(PUBLIC_STREAM, ': public', ''), /^HTTP\/1.1 200/);
    await admitted(PUBLIC_STREAM, {});
  } finally {
    await upgraded.close();
  }
});
