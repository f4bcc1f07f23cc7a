/**
 * /readyz says why the process is not ready (docs/operations.md "Monitoring"). On PostgreSQL the
 * database is reached through a TCP relay the test controls, standing in for the network: cut, it
 * refuses connections; stalled, it forwards nothing. On the embedded engine the database is closed
 * under the running server.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../support/database.ts';
import { testFetch } from '../support/fetch.ts';
import { heldStop, startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** A TCP relay to `target` that can be cut (connections refused) or stalled (nothing forwarded). */
async function relay(target: URL) {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => !stalled && upstream.write(d));
    upstream.on('data', (d) => !stalled && client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port = 0) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  const port = await listen();
  return {
    port,
    stall: (on: boolean) => void (stalled = on),
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
    restore: () => listen(port),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}

const readyz = async (server: TestServer) => {
  const res = await testFetch(`${server.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
};

describe(
  '/readyz on PostgreSQL',
  { skip: testDatabaseUrl === null && 'PostgreSQL only: set NAMAZU_TEST_DATABASE_URL' },
  () => {
    let database: TestDatabase;
    let net: Awaited<ReturnType<typeof relay>>;
    let server: TestServer;

    before(async () => {
      database = await createTestDatabase();
      const url = new URL(database.databaseUrl!);
      net = await relay(new URL(database.databaseUrl!));
      url.hostname = '127.0.0.1';
      url.port = String(net.port);
      server = await startTestServer({
        database: { ...database, databaseUrl: url.toString() },
        config: { dbPoolSize: 2, bus: 'memory' },
      });
    });
    after(async () => {
      await server?.close().catch(() => undefined);
      await net?.close();
      await database?.drop();
    });

    it('is ready while the database answers', async () => {
      assert.deepEqual(await readyz(server), { status: 200, body: { status: 'ready' } });
    });

    it('says the database did not answer when it stalls, and is ready again after', async () => {
      net.stall(true);
      const started = Date.now();
      const { status, body } = await readyz(server);
      assert.equal(status, 503);
      assert.deepEqual(body, {
        status: 'database unavailable',
        reason: 'the database did not answer within 2000 ms',
      });
      assert.ok(Date.now() - started < 5000);
      net.stall(false);
      // The stalled connection is dropped; the pool opens another.
      await net.cut();
      await net.restore();
      await waitFor(async () => (await readyz(server)).status === 200, {
        timeout: 15_000,
        message: 'ready again',
      });
    });

    it('names the refusal when the database cannot be reached', async () => {
      await net.cut();
      // A pooled connection cut in the middle may first fail without a code; new ones are refused.
      const { status, body } = await waitFor(
        async () => {
          const r = await readyz(server);
          return r.body.reason?.includes('ECONNREFUSED') ? r : null;
        },
        { message: 'a refusal named' },
      );
      assert.equal(status, 503);
      assert.deepEqual(body, {
        status: 'database unavailable',
        reason: 'the database failed the probe query (ECONNREFUSED)',
      });
      await net.restore();
      await waitFor(async () => (await readyz(server)).status === 200, {
        timeout: 15_000,
        message: 'ready again',
      });
    });
  },
);

describe(
  '/readyz on the embedded database',
  { skip: testDatabaseUrl !== null && 'embedded engine only' },
  () => {
    it('is not ready once the database is closed, and says so', async () => {
      const server = await startTestServer();
      try {
        assert.deepEqual(await readyz(server), { status: 200, body: { status: 'ready' } });
        await server.ctx.db.close();
        const { status, body } = await readyz(server);
        assert.equal(status, 503);
        assert.equal(body.status, 'database unavailable');
        assert.match(body.reason!, /^the database failed the probe query/);
      } finally {
        await server.close().catch(() => undefined);
      }
    });
  },
);

describe('/readyz while the server stops', () => {
  it('answers 503 shutting down from the start of a stop, while its steps are still under way', async () => {
    const stop = heldStop();
    const server = await startTestServer({ plugins: [stop.plugin] });
    assert.equal((await readyz(server)).status, 200);
    const closed = server.close();
    try {
      await waitFor(stop.holding, { message: 'the stop to reach the held step' });
      assert.deepEqual(await readyz(server), {
        status: 503,
        body: { status: 'shutting down', reason: 'the server is stopping' },
      });
    } finally {
      stop.release();
      await closed;
    }
  });
});
