/**
 * Admin commands beside a running embedded server (docs/architecture.md, "Admin commands beside a
 * running server"): with `namazu serve` holding the data directory, the commands run in the server
 * over its owner-only admin channel and answer exactly what they answer directly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  basic,
  quake,
  serveNode,
  startSocket,
  StreamSocket,
  tempDir,
  waitFor,
  type Node,
} from '../multinode/support.ts';
import { migratedDataDir } from '../support/database.ts';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';

const DEADLINE_MS = 2000;
/** How long a server's log line may take to reach this process through its stdout pipe. */
const LOG_MS = 10_000;

async function serverLogged(node: Node, line: RegExp): Promise<void> {
  await waitFor(`the server to log ${line}`, () => line.test(node.output()), LOG_MS).catch(() => {});
  assert.match(node.output(), line);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `namazu <args>` with nothing but the data directory configured, run from `cwd`. */
function namazu(dataDir: string, args: string[], cwd = process.cwd()): Promise<Run> {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], {
    cwd,
    env: cleanEnv({ NAMAZU_DATA_DIR: dataDir, NAMAZU_DEMO: '0' }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const serve = (dataDir: string) => serveNode({ NAMAZU_DATA_DIR: dataDir, NAMAZU_DEMO: '0' });

/** A data directory that holds a migrated database: a copy, as creating one takes seconds. */
async function dataDirIn(dir: string): Promise<string> {
  const data = join(dir, 'data');
  await migratedDataDir(data);
  return data;
}

/** The output with its generated secrets, ids and times masked, the rest as printed. */
function masked(run: Run): Run {
  const mask = (s: string) =>
    s
      .replace(/AKe\.[\w-]+/g, 'AKe.*')
      .replace(/CId\.[\w-]+/g, 'CId.*')
      .replace(/CSt\.[\w-]+/g, 'CSt.*')
      .replace(/"start":"[^"]+"/g, '"start":"*"')
      .replace(/\/[^\s"]*\/data\b/g, 'DATA');
  return { code: run.code, stdout: mask(run.stdout), stderr: mask(run.stderr) };
}

const USER = 'user@example.test';
const SCOPES = 'telegram.list socket.start telegram.get.earthquake';

/** Every admin command, errors and bad usage included, in an order that builds on itself. */
const script: string[][] = [
  ['account', 'create', '--email', USER, '--password', 'password-1'],
  ['account', 'create', '--email', USER, '--password', 'password-1'],
  ['account', 'create', '--email', USER],
  ['account', 'delete'],
  ['apikey', 'create', '--account', USER, '--scopes', SCOPES],
  ['apikey', 'create', '--account', 'nobody@example.test', '--scopes', SCOPES],
  ['apikey', 'create', '--account', USER, '--scopes', 'no.such.scope'],
  ['contract', 'add', '--account', USER, '--plan', 'telegram.earthquake'],
  ['contract', 'add', '--account', USER, '--plan', 'no.such.plan'],
  [
    'client',
    'create',
    '--account',
    USER,
    '--name',
    'App',
    '--type',
    'confidential',
    '--redirect-uri',
    'https://app.example/cb',
    '--grant',
    'authorization_code',
    '--scopes',
    'telegram.list',
  ],
  ['client', 'create', '--account', USER, '--name', 'App', '--type', 'secret', '--scopes', 'telegram.list'],
  ['ingest', 'missing-directory'],
];

/** A directory of three new telegrams and a file that is not one, as `files/` under the returned path. */
function telegramFiles(tag: string): { path: string; remove(): void } {
  const dir = tempDir('namazu-admin-files-');
  mkdirSync(join(dir.path, 'files'));
  [1, 2, 3].forEach((n) => writeFileSync(join(dir.path, 'files', `quake-${n}.xml`), quake(`${tag} ${n}`)));
  writeFileSync(join(dir.path, 'files', 'not-a-telegram.xml'), '<html></html>');
  return dir;
}

test('with the server running, every admin command answers through the channel as it does directly; an ingested telegram is streamed and listed within 2 s', async () => {
  const served = tempDir('namazu-admin-served-');
  const direct = tempDir('namazu-admin-direct-');
  const servedData = await dataDirIn(served.path);
  const directData = await dataDirIn(direct.path);
  const files = telegramFiles(`admin-channel ${Date.now()}`);
  let node: Node | undefined;
  let socket: StreamSocket | undefined;
  try {
    // The direct database gets the same history as the served one: started by a server, then stopped.
    [node] = await Promise.all([serve(servedData), serve(directData).then((n) => n.stop())]);

    let runOnServer = 0;
    for (const args of script) {
      const [viaChannel, directly] = await Promise.all([
        namazu(servedData, args, files.path),
        namazu(directData, args, files.path),
      ]);
      assert.deepEqual(masked(viaChannel), masked(directly), args.join(' '));
      if (viaChannel.code !== 2) runOnServer++;
    }
    // Bad usage is refused before connecting: only the others ran in the server.
    assert.ok(runOnServer >= 6 && runOnServer < script.length);
    // The server logs each command before answering it, but its output reaches this process later.
    const logged = () => [...node!.output().matchAll(/"msg":"admin command"/g)].length;
    await waitFor('the server to log every command', () => logged() >= runOnServer, LOG_MS).catch(() => {});
    assert.equal(logged(), runOnServer);

    const key = JSON.parse((await namazu(servedData, script[4]!)).stdout).key as string;
    const started = await startSocket(node.url, key, ['telegram.earthquake']);
    assert.equal(started.status, 200);
    socket = new StreamSocket(started.url!);
    await socket.started;

    // A relative path, resolved in the caller's working directory.
    const viaChannel = await namazu(servedData, ['ingest', 'files'], files.path);
    const ingestedAt = performance.now();
    const listed = async () => {
      const page = await fetch(`${node!.url}/v2/telegram`, { headers: basic(key) });
      assert.equal(page.status, 200);
      return ((await page.json()) as { items: { id: string }[] }).items.map((i) => i.id);
    };
    await Promise.all([
      waitFor('the WebSocket', () => socket!.ids.length >= 3, DEADLINE_MS),
      waitFor('the first page', async () => (await listed()).length >= 3, DEADLINE_MS),
    ]);
    assert.ok(performance.now() - ingestedAt < DEADLINE_MS);
    assert.equal(new Set(socket.ids).size, 3);
    assert.deepEqual((await listed()).slice(0, 3), [...socket.ids].reverse());

    const directly = await namazu(directData, ['ingest', 'files'], files.path);
    assert.deepEqual(viaChannel, directly);
    const result = JSON.parse(viaChannel.stdout);
    assert.equal(result.ingested, 3);
    assert.deepEqual(
      result.rejected.map((r: { path: string }) => r.path),
      [join('files', 'not-a-telegram.xml')],
    );
  } finally {
    socket?.close();
    await node?.stop();
    files.remove();
    served.remove();
    direct.remove();
  }
});

test('the channel is owner-only, unreachable is one clear line, commands go direct once the server stops, and a stale socket does not block a start', async () => {
  const dir = tempDir('namazu-admin-life-');
  const data = await dataDirIn(dir.path);
  const sock = join(data, 'namazu.sock');
  const create = (n: number) => [
    'account',
    'create',
    '--email',
    `u${n}@example.test`,
    '--password',
    'password-1',
  ];
  let node: Node | undefined;
  try {
    node = await serve(data);
    const st = statSync(sock);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);

    assert.equal((await namazu(data, create(1))).code, 0);
    await serverLogged(node, /"command":"account","code":0,"msg":"admin command"/);

    // The server runs but its channel is gone: one line, status 1, nothing changed.
    rmSync(sock);
    const unreachable = await namazu(data, create(2));
    assert.equal(unreachable.code, 1);
    assert.equal(unreachable.stdout, '');
    assert.match(
      unreachable.stderr,
      /^namazu account: data directory .*data is in use by process \d+, and its admin channel .*namazu\.sock cannot be reached \(ENOENT\)\n$/,
    );

    await node.stop();
    node = undefined;
    assert.equal(existsSync(sock), false, 'the socket is removed at shutdown');
    const afterStop = await namazu(data, create(2));
    assert.equal(afterStop.code, 0, afterStop.stderr);
    assert.equal(JSON.parse(afterStop.stdout).email, 'u2@example.test');

    // A killed server leaves its socket (and lock) behind.
    node = await serve(data);
    await node.kill();
    node = undefined;
    assert.ok(existsSync(sock));
    const afterKill = await namazu(data, create(3));
    assert.equal(afterKill.code, 0, afterKill.stderr);

    await (await serve(data)).kill(); // leaves a stale socket again
    node = await serve(data);
    const again = await namazu(data, create(4));
    assert.equal(again.code, 0, again.stderr);
    await serverLogged(node, /"command":"account","code":0,"msg":"admin command"/);
    assert.equal(statSync(sock).mode & 0o777, 0o600);
    // Every account exists once: the commands before reached the same database.
    assert.equal((await namazu(data, create(1))).code, 1);
  } finally {
    await node?.stop();
    dir.remove();
  }
});
