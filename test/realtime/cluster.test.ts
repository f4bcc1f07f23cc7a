/**
 * Several server processes on one PostgreSQL database: `namazu serve --workers 2` with the
 * PostgreSQL and the Redis bus. Needs NAMAZU_TEST_DATABASE_URL (and NAMAZU_TEST_REDIS_URL for Redis).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { TestClient } from './support.ts';

const BIN = fileURLToPath(new URL('../../bin/namazu.js', import.meta.url));
const redisUrl = process.env.NAMAZU_TEST_REDIS_URL || null;
const SECRET = 'cluster-test-secret-0123456789abcdef';

interface Cluster {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

async function serveWorkers(
  databaseUrl: string,
  dataDir: string,
  bus: 'postgres' | 'redis',
): Promise<Cluster> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NAMAZU_')));
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--workers', '2', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      env: {
        ...env,
        NAMAZU_DATABASE_URL: databaseUrl,
        NAMAZU_BUS: bus,
        ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
        NAMAZU_SECRET: SECRET,
        NAMAZU_DEMO: '0',
        NAMAZU_LOG_LEVEL: 'info',
      },
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const end = Date.now() + 60_000;
  const ports = () => [...out.matchAll(/"port":(\d+).*"namazu listening"/g)].map((m) => m[1]);
  while (ports().length < 2) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`workers did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(new Set(ports()).size, 1, 'both workers share one port');
  return {
    url: `http://127.0.0.1:${ports()[0]}`,
    child,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function account(databaseUrl: string, dataDir: string, contracts: string[]) {
  const db = await openDb({ databaseUrl, dataDir, poolSize: 2 });
  try {
    const pepper = await loadPepper(db, SECRET);
    const acc = await createAccount(db, {
      email: `c${Date.now()}${Math.random()}@example.test`,
      password: 'password-1',
    });
    for (const c of contracts) await addContract(db, acc.id, c);
    const { key } = await createApiKey(db, pepper, acc.id, [
      'socket.start',
      'socket.list',
      'socket.close',
      'telegram.get.earthquake',
      'eew.get.forecast',
      'eew.get.warning',
    ]);
    return key;
  } finally {
    await db.close();
  }
}

const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });

for (const bus of ['postgres', 'redis'] as const) {
  const skip = !testDatabaseUrl
    ? 'NAMAZU_TEST_DATABASE_URL is not set'
    : bus === 'redis' && !redisUrl
      ? 'NAMAZU_TEST_REDIS_URL is not set'
      : false;
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
