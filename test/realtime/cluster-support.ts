/** Helpers for tests that run `namazu serve --workers N` against a PostgreSQL test database. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';

const BIN = fileURLToPath(new URL('../../bin/namazu.js', import.meta.url));
const redisServer = process.env.NAMAZU_TEST_REDIS_URL || null;
/** A Redis database number of its own per test process: pub/sub channels carry it (bus/redis.ts). */
export const redisUrl = redisServer ? `${redisServer.replace(/\/\d*$/, '')}/${1 + (process.pid % 15)}` : null;
export const SECRET = 'cluster-test-secret-0123456789abcdef';

export interface Cluster {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

export async function serveWorkers(
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

export async function account(databaseUrl: string, dataDir: string, contracts: string[]) {
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

export const auth = (key: string) => ({
  authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
});
