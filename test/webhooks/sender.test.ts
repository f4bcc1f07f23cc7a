// The sender's connections: kept alive per host, at most its bound to one host and closed once idle;
// an attempt to a host it has not posted to yet is not held behind idle connections to other hosts
// (receivers on other loopback addresses); a refusal's status and Retry-After are its outcome; a
// post that a kept-alive connection closed under is posted again once, one on a new connection not.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { MAX_ATTEMPTS_IN_FLIGHT } from '../../src/webhooks/service.ts';
import { Sender, retryAfterMs } from '../../src/webhooks/sender.ts';
import { EXCERPT_BYTES, EXCERPT_WAIT_MS } from '../../src/webhooks/response-excerpt.ts';
import { waitFor } from '../support/wait.ts';

test('idle connections to many hosts do not hold an attempt to another host', async () => {
  // More hosts than the attempts a process makes at once: each left with an idle connection.
  const hosts = MAX_ATTEMPTS_IN_FLIGHT / 16 + 2;
  const servers: Server[] = [];
  const sender = new Sender({
    timeoutMs: 3000,
    maxResponseBytes: 1024,
    maxSocketsPerHost: 16,
    idleMs: 30_000,
    allowPrivate: true,
  });
  try {
    let port = 0;
    for (let k = 1; k <= hosts; k++) {
      const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
      server.listen(port, `127.0.0.${k}`);
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
      servers.push(server);
    }
    for (let k = 1; k <= hosts; k++) {
      // Sixteen at once to each host: sixteen connections kept idle there after.
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, () =>
          sender.send({ url: `http://127.0.0.${k}:${port}/hook`, headers: {}, body: Buffer.from('{}') }),
        ),
      );
      for (const outcome of outcomes) assert.equal(outcome.error, null, `host ${k}`);
    }
  } finally {
    sender.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  }
});

test('connections to one host stay within the bound, and one left idle is closed', async () => {
  const open = new Set<Socket>();
  let opened = 0;
  let atOnce = 0;
  const server = createServer((req, res) =>
    req.resume().on('end', () => setTimeout(() => res.writeHead(204).end(), 50)),
  );
  server.on('connection', (socket: Socket) => {
    opened++;
    open.add(socket);
    atOnce = Math.max(atOnce, open.size);
    socket.on('close', () => open.delete(socket));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const sender = new Sender({
    timeoutMs: 3000,
    maxResponseBytes: 1024,
    maxSocketsPerHost: 3,
    idleMs: 300,
    allowPrivate: true,
  });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () => sender.send({ url, headers: {}, body: Buffer.from('{}') })),
    );
    for (const outcome of outcomes) assert.equal(outcome.status, 204);
    assert.equal(atOnce, 3);
    // Kept alive: the next posts reuse them.
    await sender.send({ url, headers: {}, body: Buffer.from('{}') });
    assert.equal(opened, 3);
    // Then closed by the sender once idle (the receiver would keep them a minute).
    await waitFor(() => open.size === 0, { timeout: 3000, message: 'idle connections closed' });
  } finally {
    sender.close();
    server.closeAllConnections();
    server.close();
  }
});

/** A receiver on loopback whose handler answers (or not), and a sender with one connection to it. */
async function oneConnectionTo(handler: RequestListener) {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sender = new Sender({
    timeoutMs: 3000,
    maxResponseBytes: 1024,
    maxSocketsPerHost: 1,
    idleMs: 30_000,
    allowPrivate: true,
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    sender,
    stop() {
      sender.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

test("a refusal's Retry-After and status are the outcome, with the start of its body", async () => {
  const { url, sender, stop } = await oneConnectionTo((req, res) =>
    req.resume().on('end', () => res.writeHead(429, { 'retry-after': '7' }).end('x'.repeat(100_000))),
  );
  try {
    const outcome = await sender.send({ url, headers: {}, body: Buffer.from('{}') });
    assert.deepEqual(
      { ok: outcome.ok, status: outcome.status, error: outcome.error, retryAfterMs: outcome.retryAfterMs },
      { ok: false, status: 429, error: 'HTTP 429', retryAfterMs: 7000 },
    );
    assert.equal(outcome.response, 'x'.repeat(EXCERPT_BYTES), 'the first KiB of the body');
  } finally {
    stop();
  }
});

test("a refusal's body is kept as text: whole when short, cut on a character, controls dropped; none for a success or a body that never comes", async () => {
  const bodies: Record<string, (res: ServerResponse) => void> = {
    '/discord': (res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"message": "Invalid Webhook Token", "code": 50027}'),
    // 1,023 ASCII bytes, then a character of three: it does not fit whole.
    '/cut': (res) => res.writeHead(400).end(`${'a'.repeat(1023)}地震`),
    '/controls': (res) => res.writeHead(502).end('bad\u0000 gate\u001b[31mway\r\nline two\t.'),
    '/ok': (res) => res.writeHead(200).end('fine'),
    // The status line now, the body never.
    '/stalled': (res) => {
      res.writeHead(503, { 'content-length': '100' });
      res.flushHeaders();
    },
  };
  const { url, sender, stop } = await oneConnectionTo((req, res) =>
    req.resume().on('end', () => bodies[new URL(req.url!, 'http://x').pathname]!(res)),
  );
  const send = (path: string) =>
    sender.send({ url: url.replace(/\/hook$/, path), headers: {}, body: Buffer.from('{}') });
  try {
    assert.equal((await send('/discord')).response, '{"message": "Invalid Webhook Token", "code": 50027}');
    assert.equal((await send('/cut')).response, 'a'.repeat(1023));
    assert.equal((await send('/controls')).response, 'bad gate[31mway\r\nline two\t.');
    const ok = await send('/ok');
    assert.equal(ok.ok, true);
    assert.equal(ok.response, undefined);
    const started = performance.now();
    const stalled = await send('/stalled');
    const waited = performance.now() - started;
    assert.deepEqual([stalled.status, stalled.response], [503, null]);
    assert.ok(waited >= EXCERPT_WAIT_MS - 20 && waited < 2000, `waited ${waited} ms, not the attempt's 3 s`);
  } finally {
    stop();
  }
});

// A receiver closes a kept-alive connection as the next request on it arrives (its idle timeout
// crossing the request on the wire, RFC 9112 §9.3.1): that request was never answered, so the sender
// posts it again at once on another connection, within the same attempt and with the same headers.
for (const close of ['FIN', 'RST'] as const) {
  test(`a kept-alive connection the receiver closes under the next post (${close}) is posted again at once`, async () => {
    const served = new Map<Socket, number>();
    const seen: { id: string | undefined; socketRequest: number }[] = [];
    const { url, sender, stop } = await oneConnectionTo((req, res) => {
      const socketRequest = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, socketRequest);
      seen.push({ id: req.headers['webhook-id'] as string | undefined, socketRequest });
      req.resume().on('end', () => {
        if (socketRequest === 1) res.writeHead(204).end();
        else if (close === 'FIN') req.socket.end();
        else req.socket.resetAndDestroy();
      });
    });
    try {
      const post = (id: string) =>
        sender.send({ url, headers: { 'webhook-id': id }, body: Buffer.from('{}') });
      assert.equal((await post('msg_1')).status, 204);
      const second = await post('msg_2');
      assert.deepEqual([second.ok, second.status, second.error], [true, 204, null]);
      // Posted on the kept connection, closed there unanswered, then posted on a new one.
      assert.deepEqual(seen, [
        { id: 'msg_1', socketRequest: 1 },
        { id: 'msg_2', socketRequest: 2 },
        { id: 'msg_2', socketRequest: 1 },
      ]);
    } finally {
      stop();
    }
  });
}

test('a receiver that closes a new connection under the post fails the attempt: it is not posted again', async () => {
  let posts = 0;
  const { url, sender, stop } = await oneConnectionTo((req) => {
    posts++;
    req.resume().on('end', () => req.socket.end());
  });
  try {
    const outcome = await sender.send({ url, headers: {}, body: Buffer.from('{}') });
    assert.deepEqual([outcome.ok, outcome.error], [false, 'connection failed (UND_ERR_SOCKET)']);
    assert.equal(posts, 1);
  } finally {
    stop();
  }
});

test('Retry-After: whole or decimal seconds, or an HTTP date; anything else is none', () => {
  const now = Date.parse('2026-11-30T00:00:00Z');
  assert.equal(retryAfterMs('7', now), 7000);
  assert.equal(retryAfterMs(' 1.5 ', now), 1500);
  assert.equal(retryAfterMs('0.298', now), 298);
  assert.equal(retryAfterMs(['30', '60'], now), 30_000);
  assert.equal(retryAfterMs('Mon, 30 Nov 2026 00:01:00 GMT', now), 60_000);
  assert.equal(retryAfterMs('Sun, 29 Nov 2026 23:00:00 GMT', now), 0, 'a date passed: at once');
  for (const bad of [undefined, '', 'soon', '-5', '1e3', '2026-11-30', '12:00'])
    assert.equal(retryAfterMs(bad, now), null, String(bad));
});
