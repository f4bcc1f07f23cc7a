// The sender on its own thread (src/webhooks/sender-thread.ts): what a turn's posts carry reaches
// the receivers byte for byte (a body shared by many posts, a body that is a view of a larger
// buffer), each outcome comes back to its own post (a refusal's status, Retry-After and excerpt,
// the address guard's refusal), and posts the thread held when it ended or the sender closed fail
// (to be retried) while the next post starts another thread, a thread that failed being told of.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { ThreadSender, type ThreadSenderOptions } from '../../src/webhooks/sender-thread.ts';
import { waitFor } from '../support/wait.ts';

const options: ThreadSenderOptions = {
  timeoutMs: 3000,
  maxResponseBytes: 1024,
  maxSocketsPerHost: 16,
  idleMs: 30_000,
  allowPrivate: true,
};

interface Arrival {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('the sender thread', () => {
  let server: Server;
  let base: string;
  const arrivals: Arrival[] = [];
  /** Requests to /hang are held unanswered until the test ends. */
  const hanging: (() => void)[] = [];
  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        arrivals.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === '/hang') return hanging.push(() => res.writeHead(204).end());
        if (req.url === '/busy') return res.writeHead(503, { 'retry-after': '7' }).end('come back later');
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    for (const answer of hanging) answer();
    server.closeAllConnections();
    server.close();
  });

  it('posts a turn of posts, each body as given, and answers each post with its own outcome', async () => {
    const sender = new ThreadSender(options);
    try {
      arrivals.length = 0;
      const shared = Buffer.from(JSON.stringify({ telegram: 'VXSE43', text: '緊急地震速報' }));
      // A few bytes of Node's shared pool: a view of a larger buffer, of which only these are sent.
      const pooled = Buffer.from('{"small":true}');
      assert.ok(pooled.buffer.byteLength > pooled.byteLength);
      const posts = [
        ...Array.from({ length: 20 }, (_, i) => ({
          url: `${base}/shared/${i}`,
          headers: { 'content-type': 'application/json', 'webhook-id': `msg_${i}` },
          body: shared,
        })),
        { url: `${base}/pooled`, headers: { 'webhook-id': 'msg_pooled' }, body: pooled },
        { url: `${base}/busy`, headers: { 'webhook-id': 'msg_busy' }, body: pooled },
      ];
      const outcomes = await Promise.all(posts.map((p) => sender.send(p)));
      for (const outcome of outcomes.slice(0, 21)) {
        assert.equal(outcome.ok, true);
        assert.equal(outcome.status, 204);
        assert.ok(outcome.durationMs > 0);
      }
      const busy = outcomes[21]!;
      assert.deepEqual(
        { ok: busy.ok, status: busy.status, error: busy.error, retryAfterMs: busy.retryAfterMs },
        { ok: false, status: 503, error: 'HTTP 503', retryAfterMs: 7000 },
      );
      assert.equal(busy.response, 'come back later');
      assert.equal(arrivals.length, 22);
      for (const p of posts) {
        const arrival = arrivals.find((a) => a.headers['webhook-id'] === p.headers['webhook-id'])!;
        assert.equal(arrival.path, new URL(p.url).pathname);
        assert.equal(arrival.body, p.body.toString());
      }
      const firstShared = arrivals.find((a) => a.path === '/shared/0')!;
      assert.equal(firstShared.headers['content-type'], 'application/json');
    } finally {
      sender.close();
    }
  });

  it('refuses a private address as the sender does where the operator does not allow them', async () => {
    const sender = new ThreadSender({ ...options, allowPrivate: false });
    try {
      arrivals.length = 0;
      const outcome = await sender.send({ url: `${base}/private`, headers: {}, body: Buffer.from('{}') });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error, 'scheme refused');
      const https = await sender.send({
        url: 'https://127.0.0.1:1/private',
        headers: {},
        body: Buffer.from('{}'),
      });
      assert.equal(https.error, 'address refused');
      assert.equal(arrivals.length, 0);
    } finally {
      sender.close();
    }
  });

  it('fails the posts a thread held when it ended, and starts another for the next', async () => {
    const sender = new ThreadSender(options);
    try {
      arrivals.length = 0;
      const held = sender.send({ url: `${base}/hang`, headers: {}, body: Buffer.from('{}') });
      // Ended once the post is in the thread's hands (the receiver has it).
      await waitForArrivals(1);
      const thread = (sender as unknown as { worker: Worker }).worker;
      await thread.terminate();
      const outcome = await held;
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error, 'sender thread ended');
      const next = await sender.send({ url: `${base}/after`, headers: {}, body: Buffer.from('{}') });
      assert.equal(next.ok, true);
      assert.notEqual((sender as unknown as { worker: Worker }).worker, thread);
    } finally {
      sender.close();
    }
  });

  it('tells of a thread that failed, fails the posts it held, and starts another', async () => {
    const errors: Error[] = [];
    const sender = new ThreadSender(options, (err) => errors.push(err));
    try {
      arrivals.length = 0;
      const held = sender.send({ url: `${base}/hang`, headers: {}, body: Buffer.from('{}') });
      await waitForArrivals(1);
      // A message the thread cannot read: its handler throws, and the thread fails.
      (sender as unknown as { worker: Worker }).worker.postMessage({ bodies: [], posts: null });
      const outcome = await held;
      assert.match(outcome.error!, /^sender thread failed \(.+\)$/);
      assert.equal(errors.length, 1);
      const next = await sender.send({ url: `${base}/after`, headers: {}, body: Buffer.from('{}') });
      assert.equal(next.ok, true);
    } finally {
      sender.close();
    }
  });

  it('fails what it holds when closed', async () => {
    const sender = new ThreadSender(options);
    arrivals.length = 0;
    const held = sender.send({ url: `${base}/hang`, headers: {}, body: Buffer.from('{}') });
    await waitForArrivals(1);
    // Begun in the same turn as the close: never handed over.
    const unsent = sender.send({ url: `${base}/never`, headers: {}, body: Buffer.from('{}') });
    sender.close();
    assert.equal((await held).error, 'sender closed');
    assert.equal((await unsent).error, 'sender closed');
    assert.equal(arrivals.filter((a) => a.path === '/never').length, 0);
    // And stays closed: a post after it fails at once, and starts no thread.
    const late = await sender.send({ url: `${base}/late`, headers: {}, body: Buffer.from('{}') });
    assert.equal(late.error, 'sender closed');
    assert.equal((sender as unknown as { worker: Worker | null }).worker, null);
  });

  const waitForArrivals = (n: number) =>
    waitFor(() => arrivals.length >= n, { timeout: 10_000, message: `${n} arrivals` });
});
