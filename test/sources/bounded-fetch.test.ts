/**
 * The sources' HTTP client (src/sources/bounded-fetch.ts) against local hosts that misbehave: one
 * that drops a reused connection as the next request arrives (the race of a host closing an idle
 * connection), one that drips its answer forever, a gzip bomb, and redirects to another origin.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { boundedGet, boundedRequest, FetchFailed } from '../../src/sources/bounded-fetch.ts';

const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function host(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A host that answers the first request of each connection and drops the connection when a second
 * one arrives on it, without a byte of answer: what a client sees when the host closed the idle
 * connection just as the request was sent.
 */
async function droppingReusedHost() {
  const perSocket = new WeakMap<Socket, number>();
  const seen = { answered: [] as string[], dropped: 0, bodies: [] as string[] };
  const origin = await host((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n > 1) {
      seen.dropped++;
      req.socket.destroy();
      return;
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.answered.push(`${req.method} ${req.url}`);
      seen.bodies.push(body);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer to ${req.url}`);
    });
  });
  return { origin, seen };
}

test('a request dropped on a reused connection before any answer is sent once more, on a new connection', async () => {
  const { origin, seen } = await droppingReusedHost();
  for (let i = 0; i < 6; i++) {
    const got = await boundedGet({ url: `${origin}/get/${i}`, maxBytes: 1024, timeoutMs: 5000 });
    assert.equal(got.status, 'ok');
    assert.equal(got.status === 'ok' && got.body.toString(), `answer to /get/${i}`);
  }
  // Token renewal is a POST: the host never saw the dropped one, so it is sent again too.
  const posted = await boundedRequest({
    url: `${origin}/token`,
    method: 'POST',
    body: 'grant_type=client_credentials',
    maxBytes: 1024,
    timeoutMs: 5000,
  });
  assert.equal(posted.status, 200);
  assert.ok(seen.dropped >= 3, `connections dropped at a request: ${seen.dropped}`);
  assert.deepEqual(seen.answered, [...Array.from({ length: 6 }, (_, i) => `GET /get/${i}`), 'POST /token']);
  assert.equal(seen.bodies.at(-1), 'grant_type=client_credentials');
});

test('a host that drops every connection: one retry, then a transient failure (no loop)', async () => {
  let requests = 0;
  const origin = await host((req) => {
    requests++;
    req.socket.destroy();
  });
  await assert.rejects(boundedGet({ url: `${origin}/x`, maxBytes: 1024, timeoutMs: 5000 }), (err) => {
    assert.ok(err instanceof FetchFailed && err.transient, String(err));
    return true;
  });
  // A fresh connection fails: no retry, since the host may have seen the request.
  assert.equal(requests, 1);
});

test('a request whose signal was aborted already (a source stopping) fails quietly and sends nothing', async () => {
  let requests = 0;
  const origin = await host((_req, res) => {
    requests++;
    res.end('x');
  });
  await assert.rejects(
    boundedGet({ url: `${origin}/x`, maxBytes: 1024, timeoutMs: 5000, signal: AbortSignal.abort() }),
    (err) => err instanceof FetchFailed && err.transient,
  );
  // A request destroyed without an error listener would throw here, out of the process's reach.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(requests, 0);
});

test('an answer that trickles forever ends at the deadline, body read included', async () => {
  const origin = await host((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    const drip = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(drip));
  });
  const t0 = performance.now();
  await assert.rejects(boundedGet({ url: `${origin}/slow`, maxBytes: 1 << 20, timeoutMs: 800 }), (err) => {
    assert.ok(err instanceof FetchFailed && /within 800 ms/.test(err.message), String(err));
    return true;
  });
  const took = performance.now() - t0;
  assert.ok(took >= 750 && took < 3000, `ended after ${Math.round(took)} ms`);
});

test('a gzip bomb (1 GiB of zeros in about 1 MB) stops at the size cap, without holding the whole', async () => {
  // Concatenated gzip members decompress as one stream: 16 × 64 MiB.
  const member = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
  const origin = await host((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(bomb);
  });
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await assert.rejects(
      boundedGet({ url: `${origin}/bomb`, maxBytes: 2 << 20, timeoutMs: 10_000 }),
      (err) => {
        assert.ok(err instanceof FetchFailed && /decompressed body over/.test(err.message), String(err));
        assert.equal(err.transient, false);
        return true;
      },
    );
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.ok(peak - before < 64 << 20, `RSS grew ${((peak - before) / 2 ** 20).toFixed(1)} MiB`);
  // An honest compressed answer under the cap is decoded.
  const small = await host((_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('<Report/>'));
  });
  const got = await boundedGet({ url: `${small}/ok`, maxBytes: 1024, timeoutMs: 5000 });
  assert.equal(got.status === 'ok' && got.body.toString(), '<Report/>');
});

test('redirects are followed on the same origin only; the credential never reaches another', async () => {
  const elsewhere: IncomingMessage[] = [];
  const other = await host((req, res) => {
    elsewhere.push(req);
    res.end('stolen');
  });
  const origin = await host((req, res) => {
    if (req.url === '/moved') return res.writeHead(302, { location: '/here' }).end();
    if (req.url === '/away') return res.writeHead(302, { location: `${other}/catch` }).end();
    res.end(`at ${req.url} with ${req.headers.authorization}`);
  });
  const headers = { authorization: 'Bearer secret-token' };
  const moved = await boundedGet({ url: `${origin}/moved`, headers, maxBytes: 1024, timeoutMs: 5000 });
  assert.equal(moved.status === 'ok' && moved.body.toString(), 'at /here with Bearer secret-token');
  await assert.rejects(
    boundedGet({ url: `${origin}/away`, headers, maxBytes: 1024, timeoutMs: 5000 }),
    (err) => {
      assert.ok(
        err instanceof FetchFailed && /another origin/.test(err.message) && !err.transient,
        String(err),
      );
      return true;
    },
  );
  assert.equal(elsewhere.length, 0);
});
