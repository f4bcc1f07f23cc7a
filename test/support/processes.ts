/** Real `namazu serve` processes, for tests of several processes on one PostgreSQL database. */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from './namazu-bin.ts';
import { waitFor } from './wait.ts';

const redisServer = process.env.NAMAZU_TEST_REDIS_URL || null;
/** A Redis database number of its own per test process: pub/sub channels carry it (bus/redis.ts). */
export const redisUrl = redisServer ? `${redisServer.replace(/\/\d*$/, '')}/${1 + (process.pid % 15)}` : null;
export const SECRET = 'cluster-test-secret-0123456789abcdef';

/** Why a test of several processes on this bus cannot run here (the `skip` of node:test), or false. */
export function busSkip(bus: 'postgres' | 'redis'): string | false {
  if (!process.env.NAMAZU_TEST_DATABASE_URL) return 'NAMAZU_TEST_DATABASE_URL is not set';
  return bus === 'redis' && !redisUrl ? 'NAMAZU_TEST_REDIS_URL is not set' : false;
}

/** This test process's environment without its NAMAZU_* settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NAMAZU_')));
  return { ...env, ...extra };
}

/** Runs the real `namazu` executable to completion against the embedded database in `dataDir`. */
export function namazuOn(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, BIN, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    env: cleanEnv({}),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface ServeProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `namazu serve` on an ephemeral loopback port with `env` (and no NAMAZU_* setting of this
 * process); resolves once `listeners` processes (workers) report that they listen, on one port.
 */
export async function serve(
  env: Record<string, string>,
  { args = [], listeners = 1 }: { args?: string[]; listeners?: number } = {},
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, BIN, 'serve', '--port', '0', '--host', '127.0.0.1', ...args],
    {
      env: cleanEnv({ NAMAZU_DEMO: 'false', NAMAZU_LOG_LEVEL: 'info', ...env }),
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ports = () => [...out.matchAll(/"port":(\d+).*"namazu listening"/g)].map((m) => m[1]!);
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`namazu serve exited with ${child.exitCode}:\n${out}`);
      return ports().length >= listeners;
    },
    { timeout: 60_000, interval: 50, message: 'namazu serve to listen' },
  ).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}\n${out}`);
  });
  assert.equal(new Set(ports()).size, 1, 'every worker listens on one port');
  return {
    url: `http://127.0.0.1:${ports()[0]}`,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** `namazu serve --workers 2` over `databaseUrl` with the given bus. */
export function serveWorkers(
  databaseUrl: string,
  dataDir: string,
  bus: 'postgres' | 'redis',
): Promise<ServeProcess> {
  return serve(
    {
      NAMAZU_DATABASE_URL: databaseUrl,
      NAMAZU_BUS: bus,
      ...(redisUrl ? { NAMAZU_REDIS_URL: redisUrl } : {}),
      NAMAZU_SECRET: SECRET,
    },
    { args: ['--workers', '2', '--data-dir', dataDir], listeners: 2 },
  );
}

/** An account with the given contracts and an API key with the socket and class scopes. */
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
