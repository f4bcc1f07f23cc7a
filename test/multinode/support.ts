/**
 * Helpers for the tests that run the service as real processes (docs/operations.md): `namazu serve`
 * nodes, nginx in front of them, throwaway Redis servers, accounts seeded in the shared database,
 * and WebSocket clients that record what they receive.
 */
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';
import { waitFor as sharedWaitFor } from '../support/wait.ts';

const FIXTURES =
  process.env.NAMAZU_FIXTURES ??
  join(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/fixtures');
/** An ordinary (not test) earthquake telegram: listed by /v2/telegram and /telegram/v1/list. */
export const QUAKE_FILE = join(FIXTURES, 'jma-xml/jma-official-samples/32-35_04_04_240613_VXSE53.xml');
const QUAKE = readFileSync(QUAKE_FILE);

/** The earthquake telegram made unique by a comment: a new id per `n`. */
export function quake(n: number | string): Buffer {
  return Buffer.concat([QUAKE, Buffer.from(`\n<!-- stream ${n} -->\n`)]);
}

/** The nginx binary (.ci/services.sh exports NAMAZU_TEST_NGINX), when configured. */
export const nginxBin = process.env.NAMAZU_TEST_NGINX || null;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * test/support/wait.ts's waitFor in the argument order these tests read best, for checks whose
 * answer may be falsy but meaningful (a count of 0): only undefined and false mean "not yet".
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
  everyMs = 20,
): Promise<T> {
  const found = await sharedWaitFor(
    async () => {
      const value = await check();
      return value === undefined || value === false ? undefined : { value };
    },
    { timeout: ms, interval: everyMs, message: what },
  );
  return found.value;
}

/**
 * Proves that nothing more is on its way to `sockets` (no late duplicate): delivery is in serial
 * order, so once a marker telegram stored after everything else has reached every socket, anything
 * sent twice would have arrived before it. Returns the marker's id.
 */
export async function afterMarker(
  sockets: readonly { ids: readonly string[] }[],
  storeMarker: () => Promise<string>,
): Promise<string> {
  const marker = await storeMarker();
  await waitFor('the marker on every socket', () => sockets.every((s) => s.ids.includes(marker)), 10_000);
  return marker;
}

/** A free loopback port, asked of the kernel. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs `namazu <args>` to its end; resolves with its exit code and output. */
export function runNamazu(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { env: cleanEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

export interface Node {
  /** http://127.0.0.1:<port> of the node itself (not through the load balancer). */
  url: string;
  child: ChildProcess;
  output(): string;
  /** Kills the node and its workers at once, as a host crash would. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit (a no-op once it has exited). */
  stop(): Promise<void>;
}

/**
 * Starts `namazu serve` with exactly `env` (plus the log level) and waits until every worker listens.
 * The node gets a process group of its own, so a kill takes its workers with it.
 */
export async function serveNode(
  env: Record<string, string>,
  options: { port?: number; workers?: number } = {},
): Promise<Node> {
  const workers = options.workers ?? 1;
  const args = [...NODE_FLAGS, BIN, 'serve', '--port', String(options.port ?? 0), '--host', '127.0.0.1'];
  if (workers > 1) args.push('--workers', String(workers));
  const child = spawn(process.execPath, args, {
    env: cleanEnv({ NAMAZU_LOG_LEVEL: 'info', ...env }),
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const ports = () => [...out.matchAll(/"port":(\d+).*"namazu listening"/g)].map((m) => m[1]!);
  try {
    await waitFor(
      'the node to listen',
      () => ports().length >= workers || child.exitCode !== null,
      60_000,
      50,
    );
  } catch (err) {
    process.kill(-child.pid!, 'SIGKILL');
    throw new Error(`${(err as Error).message}\n${out}`);
  }
  if (child.exitCode !== null) throw new Error(`namazu serve exited with ${child.exitCode}:\n${out}`);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  return {
    url: `http://127.0.0.1:${ports()[0]}`,
    child,
    output: () => out,
    async kill() {
      signalGroup('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signalGroup('SIGTERM');
      await exited;
    },
  };
}

/** The upstream idle time of the documented nginx configuration, as written there. */
const UPSTREAM_KEEPALIVE = /^( *keepalive_timeout )60s;$/m;

/**
 * The complete nginx configuration of docs/operations.md, with its three addresses replaced and,
 * when given, its upstream idle time scaled down (`upstreamKeepalive`, e.g. `2s`).
 */
export function documentedNginxConfig(
  listen: number,
  upstreams: [number, number],
  upstreamKeepalive?: string,
): string {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/operations.md', import.meta.url)), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/operations.md has no nginx configuration');
  let config = block[1]!
    .replace('127.0.0.1:8080', `127.0.0.1:${listen}`)
    .replace('127.0.0.1:8081', `127.0.0.1:${upstreams[0]}`)
    .replace('127.0.0.1:8082', `127.0.0.1:${upstreams[1]}`);
  if (upstreamKeepalive !== undefined) {
    if (!UPSTREAM_KEEPALIVE.test(config))
      throw new Error('the nginx configuration has no upstream keepalive_timeout');
    config = config.replace(UPSTREAM_KEEPALIVE, `$1${upstreamKeepalive};`);
  }
  return config;
}

/** nginx in the foreground with the documented configuration, everything it writes in a temp dir. */
export async function startNginx(
  port: number,
  upstreams: [number, number],
  upstreamKeepalive?: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = tempDir('namazu-nginx-');
  chmodSync(dir.path, 0o755); // started as root, the workers run as an unprivileged user
  writeFileSync(join(dir.path, 'nginx.conf'), documentedNginxConfig(port, upstreams, upstreamKeepalive));
  const child = spawn(
    nginxBin!,
    ['-p', dir.path, '-c', 'nginx.conf', '-e', 'error.log', '-g', `daemon off; pid ${dir.path}/nginx.pid;`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const up = async () => {
    if (child.exitCode !== null) return true;
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return true;
    } catch {
      return false;
    }
  };
  await waitFor('nginx to answer', up, 10_000, 50);
  if (child.exitCode !== null) {
    const log = readFileSync(join(dir.path, 'error.log'), 'utf8');
    dir.remove();
    throw new Error(`nginx exited with ${child.exitCode}:\n${out}${log}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await exited;
      }
      dir.remove();
    },
  };
}

export interface TestRedis {
  url: string;
  /** Kills the server (SIGKILL): connections drop at once. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

/** A Redis server of the test's own on a free port: stopping it disturbs no other test. */
export async function startRedis(): Promise<TestRedis> {
  const dir = tempDir('namazu-redis-');
  const port = await freePort();
  let stopped: Promise<void> = Promise.resolve();
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir.path],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    c.stdout!.on('data', (d) => (out += d));
    stopped = new Promise<void>((resolve) => c.on('exit', () => resolve()));
    child = c;
    await waitFor(
      'redis-server to listen',
      () => /Ready to accept connections/.test(out) || c.exitCode !== null,
      10_000,
    );
    if (c.exitCode !== null) throw new Error(`redis-server exited:\n${out}`);
  };
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await stopped;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    stop,
    restart: start,
    async remove() {
      await stop();
      dir.remove();
    },
  };
}

export const SECRET = 'multinode-test-secret-0123456789abcdef';

/**
 * `count` accounts, each with the contracts and an API key with the scopes; `secret` is the
 * NAMAZU_SECRET of the nodes (null: the pepper the database keeps).
 */
export async function seedKeys(
  databaseUrl: string,
  secret: string | null,
  count: number,
  contracts: string[],
  scopes: string[],
): Promise<string[]> {
  const db = await openDb({ databaseUrl, dataDir: tmpdir(), poolSize: 2 });
  try {
    const pepper = await loadPepper(db, secret);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const account = await createAccount(db, {
        email: `node-${i}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`,
        password: 'password-1',
      });
      for (const c of contracts) await addContract(db, account.id, c);
      keys.push((await createApiKey(db, pepper, account.id, scopes)).key);
    }
    return keys;
  } finally {
    await db.close();
  }
}

export const basic = (key: string) => ({
  authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
});

/** POST /v2/socket: the status, and the WebSocket address when it was granted. */
export async function startSocket(
  baseUrl: string,
  key: string,
  classifications: string[],
): Promise<{ status: number; url?: string }> {
  const r = await fetch(`${baseUrl}/v2/socket`, {
    method: 'POST',
    headers: { ...basic(key), 'content-type': 'application/json' },
    body: JSON.stringify({ classifications }),
  });
  const body = (await r.json()) as { websocket?: { url: string } };
  return { status: r.status, url: body.websocket?.url };
}

/**
 * A service.v2 WebSocket client: answers pings, records the ids of the `data` messages in order
 * and how the connection ended.
 */
export class StreamSocket {
  readonly ws: WebSocket;
  readonly ids: string[] = [];
  readonly receivedAt = new Map<string, number>();
  /** The servers that delivered (the last name in each message's `passing`). */
  readonly servers = new Set<string>();
  readonly started: Promise<{ socketId: number }>;
  readonly closed: Promise<number>;
  closeCode: number | null = null;

  constructor(url: string) {
    this.ws = new WebSocket(url, { perMessageDeflate: false });
    this.ws.on('error', () => {});
    this.started = new Promise((resolve, reject) => {
      this.ws.once('close', (code) => reject(new Error(`closed with ${code} before start`)));
      this.ws.on('message', (raw) => {
        const msg = JSON.parse(raw.toString()) as {
          type: string;
          id?: string;
          pingId?: string;
          socketId?: number;
          passing?: { name: string }[];
        };
        if (msg.type === 'start') resolve({ socketId: msg.socketId! });
        if (msg.type === 'ping') this.ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
        if (msg.type === 'data') {
          this.ids.push(msg.id!);
          this.receivedAt.set(msg.id!, performance.now());
          this.servers.add(msg.passing!.at(-1)!.name);
        }
      });
    });
    this.started.catch(() => {});
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  close(): void {
    this.ws.close(1000);
  }
}

/** The ids the database gave the telegrams with these raw bytes, in serial order. */
export async function storedIds(databaseUrl: string, raws: Buffer[]): Promise<string[]> {
  const db = await openDb({ databaseUrl, dataDir: tmpdir(), poolSize: 1 });
  try {
    const digests = raws.map((raw) => createHash('sha384').update(raw).digest('hex'));
    const rows = await db.query<{ id: string }>(
      'SELECT id FROM telegrams WHERE raw_digest = ANY($1) ORDER BY serial',
      [digests],
    );
    return rows.map((r) => r.id);
  } finally {
    await db.close();
  }
}

/** Ids in the order first seen, repeated ones dropped. */
export function dedupe(ids: string[]): string[] {
  return [...new Set(ids)];
}
