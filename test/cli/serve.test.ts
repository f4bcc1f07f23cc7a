import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

function serve(
  dataDir: string,
  extra: Record<string, string> = {},
): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      env: cleanEnv({ NAMAZU_LOG_LEVEL: 'warn', ...extra }),
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

test('first start on a new embedded database prints the demo setup once; SIGTERM stops cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-serve-'));
  const first = serve(dir);
  await waitFor(() => first.output().includes('Credentials:'), {
    timeout: 60_000,
    message: 'the demo banner',
  });
  // Standard output is not a terminal here: the secrets are in an owner-only file, never in the output.
  const printed = first.output();
  assert.doesNotMatch(printed, /AKe\.|CSt\.|demo@namazu\.local \//);
  const credentials = /Credentials:\s+(\S+)/.exec(printed)![1]!;
  assert.equal(credentials, join(dir, 'demo-credentials.txt'));
  assert.equal(statSync(credentials).mode & 0o777, 0o600);
  const out = readFileSync(credentials, 'utf8');
  assert.equal(/Service:\s+(http:\/\/\S+)/.exec(printed)![1], /Service:\s+(http:\/\/\S+)/.exec(out)![1]);
  const service = /Service:\s+(http:\/\/\S+)/.exec(out)![1]!;
  const key = /API key:\s+(AKe\.\S+)/.exec(out)![1]!;
  assert.match(out, /OAuth client:\s+CId\.\S+/);
  assert.match(out, /Client secret:\s+CSt\.\S+/);
  assert.match(out, new RegExp(`curl -s '${service}/v2/contract' -u '${key.replace('.', '\\.')}:'`));
  const health = await fetch(`${service}/healthz`);
  assert.equal(health.status, 200);
  // Every address the banner names answers, and the printed key works.
  const reference = /API reference:\s+(http:\/\/\S+)/.exec(out)![1]!;
  assert.equal((await fetch(reference)).status, 200);
  // The console, for a browser: its sign-in page.
  const consoleUrl = /Console:\s+(http:\/\/\S+)/.exec(printed)![1]!;
  assert.equal(consoleUrl, `${service}/account`);
  const signin = await fetch(consoleUrl, { headers: { accept: 'text/html' }, redirect: 'manual' });
  assert.equal(new URL(signin.headers.get('location')!, service).pathname, '/account/signin');
  const metadata = /OAuth metadata: (http:\/\/[^\s)]+)/.exec(out)![1]!;
  assert.equal((await fetch(metadata)).status, 200);
  const contracts = await fetch(`${service}/v2/contract`, {
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  });
  assert.equal(contracts.status, 200);

  // The data directory is locked while the server runs.
  const second = serve(dir);
  assert.equal(await exited(second.child), 1);
  // What to do is said with it: the same `npm start` twice, or one on the same directory.
  assert.match(
    second.output(),
    /^namazu serve: data directory .* is in use by process \d+: a server already runs on it; stop that one first, or start this one with another --data-dir \(NAMAZU_DATA_DIR\) and --port \(NAMAZU_PORT\)\n$/,
  );

  const done = exited(first.child);
  first.child.kill('SIGTERM');
  assert.equal(await done, 0);

  // A second start on the same installation does not create or print a demo again.
  const again = serve(dir, { NAMAZU_LOG_LEVEL: 'info' });
  await waitFor(() => again.output().includes('namazu listening'), { timeout: 60_000, message: 'listening' });
  const port = Number(/"port":(\d+)/.exec(again.output())![1]);
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  assert.doesNotMatch(again.output(), /API key:|Credentials:/);
  const stopped = exited(again.child);
  again.child.kill('SIGINT');
  assert.equal(await stopped, 0);
});

test('a port already in use stops the start with one line saying what to do', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  const dir = mkdtempSync(join(tmpdir(), 'namazu-serve-'));
  try {
    const child = spawn(
      process.execPath,
      [...NODE_FLAGS, BIN, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir],
      { env: cleanEnv({ NAMAZU_LOG_LEVEL: 'warn', NAMAZU_DEMO: '0' }) },
    );
    let out = '';
    child.stderr!.on('data', (d) => (out += d));
    assert.equal(await exited(child), 1);
    assert.equal(
      out,
      `namazu serve: port already in use: 127.0.0.1:${port}: another process listens there (a namazu serve started before?); stop it, or choose another port with --port N or NAMAZU_PORT=N\n`,
    );
  } finally {
    blocker.close();
  }
});
