/**
 * Several server processes on one PostgreSQL database: `namazu serve --workers 2` with the
 * PostgreSQL and the Redis bus. Needs NAMAZU_TEST_DATABASE_URL (and NAMAZU_TEST_REDIS_URL for Redis).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../support/database.ts';
import { account, auth, busSkip, serveWorkers } from '../support/processes.ts';
import { TestClient } from '../support/realtime.ts';

for (const bus of ['postgres', 'redis'] as const) {
  const skip = busSkip(bus);
  test(
    `--workers 2 with the ${bus} bus: limit across processes, DELETE reaches the holding worker, 4503 on stop`,
    { skip },
    async () => {
      const database = await createTestDatabase();
      const cluster = await serveWorkers(database.databaseUrl!, database.dataDir, bus);
      try {
        // 50 concurrent starts spread over both workers; the limit is 3.
        const key = await account(database.databaseUrl!, database.dataDir, [
          'telegram.earthquake',
          'eew.forecast',
          'eew.warning',
        ]);
        const statuses = await Promise.all(
          Array.from({ length: 50 }, () =>
            fetch(`${cluster.url}/v2/socket`, {
              method: 'POST',
              headers: auth(key),
              body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
            }).then((r) => r.status),
          ),
        );
        assert.equal(statuses.filter((s) => s === 200).length, 3, statuses.join(','));
        assert.equal(statuses.filter((s) => s === 409).length, 47);

        // Sockets land on either worker; each DELETE may be served by the other one.
        const key2 = await account(database.databaseUrl!, database.dataDir, [
          'telegram.earthquake',
          'websocket.plus5',
        ]);
        const clients: { client: TestClient; id: number }[] = [];
        for (let i = 0; i < 6; i++) {
          const started = (await (
            await fetch(`${cluster.url}/v2/socket`, {
              method: 'POST',
              headers: auth(key2),
              body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
            })
          ).json()) as { websocket: { id: number; url: string } };
          const client = new TestClient(started.websocket.url);
          assert.equal((await client.next()).type, 'start');
          clients.push({ client, id: started.websocket.id });
        }
        const list = (await (await fetch(`${cluster.url}/v2/socket`, { headers: auth(key2) })).json()) as {
          items: { server: string; status: string }[];
        };
        const servers = new Set(list.items.map((s) => s.server));
        assert.equal(servers.size, 2, `the sockets are spread over both workers: ${[...servers].join(', ')}`);
        for (const s of servers) assert.match(s, /#[12]$/);
        for (const { client, id } of clients.slice(0, 3)) {
          const del = await fetch(`${cluster.url}/v2/socket/${id}`, {
            method: 'DELETE',
            headers: auth(key2),
          });
          assert.equal(del.status, 204);
          assert.equal((await client.next()).code, 4808);
          assert.equal((await client.closed).code, 4808);
        }
        // Stopping the service closes the remaining sockets with 4503 so that clients reconnect.
        const remaining = clients.slice(3);
        assert.equal(await cluster.stop(), 0);
        for (const { client } of remaining) {
          const err = await client.next();
          assert.equal(err.code, 4503);
          assert.equal((await client.closed).code, 4503);
        }
      } finally {
        if (cluster.child.exitCode === null) await cluster.stop();
        await database.drop();
      }
    },
  );
}
