/**
 * A server without an administrator says how to create the first one (stderr, log, sign-up page);
 * `namazu account password` sets a new password, read from standard input when not given
 * (docs/operations.md, "The first administrator").
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkPassword } from '../../src/accounts/accounts.ts';
import { openDb } from '../../src/db/open.ts';
import { runNamazu, serveNode, tempDir, type Node } from '../multinode/support.ts';
import { migratedDataDir } from '../support/database.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { waitFor } from '../support/wait.ts';
import { cleanEnv } from '../support/processes.ts';

/** `namazu args…` with `input` on its standard input (a pipe, not a terminal), in `cwd` when given. */
function withInput(args: string[], env: Record<string, string>, input: string, cwd?: string) {
  const child = spawn(process.execPath, [...NODE_FLAGS, NAMAZU_BIN, ...args], { env: cleanEnv(env), cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

test('without an administrator the server and the sign-up page say how to create one; account password resets a password', async () => {
  const dir = tempDir('namazu-first-admin-');
  const env = { NAMAZU_DATA_DIR: join(dir.path, 'data'), NAMAZU_DEMO: 'false' };
  let node: Node | undefined;
  try {
    await migratedDataDir(env.NAMAZU_DATA_DIR);
    node = await serveNode(env);
    const command = 'npx namazu account create --email you@example.com --password "a long password" --admin';
    // Said once the server listens (its output comes through a pipe), with the server's directory:
    // the data directory is not ./data.
    const printed = `${command} --data-dir ${env.NAMAZU_DATA_DIR}`;
    await waitFor(() => node!.output().includes(`\n  ${printed}\n`), { message: 'the notice' });
    assert.ok(node.output().includes(`namazu: no administrator yet.`), node.output());
    // The log line comes through the logger's own stream, after or before the plain notice.
    await waitFor(() => /"msg":"no administrator yet"/.test(node!.output()), { message: 'the log line' });
    // The public page shows the command without the server's directories.
    const page = await (await fetch(`${node.url}/account/signup`)).text();
    assert.ok(page.includes(command.replaceAll('"', '&quot;')) || page.includes(command), page);
    assert.ok(!page.includes(env.NAMAZU_DATA_DIR), page);
    assert.doesNotMatch(page, /Ask an administrator/);

    // The printed command, run as printed from another directory, creates the administrator.
    const words = printed
      .replace(/^npx namazu /, '')
      .match(/"[^"]*"|\S+/g)!
      .map((w) => w.replace(/^"(.*)"$/, '$1'));
    const elsewhere = tempDir('namazu-first-admin-cwd-');
    try {
      const asPrinted = await withInput(words, { NAMAZU_DEMO: 'false' }, '', elsewhere.path);
      assert.equal(asPrinted.code, 0, asPrinted.stderr);
    } finally {
      elsewhere.remove();
    }
    assert.match(await (await fetch(`${node.url}/account/signup`)).text(), /Ask an administrator/);

    const created = await runNamazu(
      ['account', 'create', '--email', 'ops@example.test', '--password', 'first password', '--admin'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const after = await (await fetch(`${node.url}/account/signup`)).text();
    assert.match(after, /Ask an administrator/);
    assert.ok(!after.includes('npx namazu account create'));

    // Through the server's admin channel, the password read from standard input goes with it.
    const reset = await withInput(
      ['account', 'password', '--email', 'ops@example.test'],
      env,
      'second password\n',
    );
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal(JSON.parse(reset.stdout).passwordReset, true);
    const nobody = await runNamazu(
      ['account', 'password', '--email', 'no@example.test', '--password', 'x'.repeat(12)],
      env,
    );
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /no account with email no@example.test/);
    const short = await withInput(['account', 'password', '--email', 'ops@example.test'], env, 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /password must be 8 to 1024 characters/);
    await node.stop();
    node = undefined;

    const db = await openDb({ databaseUrl: null, dataDir: env.NAMAZU_DATA_DIR, poolSize: 1 });
    try {
      assert.equal(await checkPassword(db, 'ops@example.test', 'first password'), null);
      assert.ok(await checkPassword(db, 'ops@example.test', 'second password'));
    } finally {
      await db.close();
    }
    // With no server, directly, and with --password.
    const direct = await runNamazu(
      ['account', 'password', '--email', 'ops@example.test', '--password', 'third password'],
      env,
    );
    assert.equal(direct.code, 0, direct.stderr);
    node = await serveNode(env);
    const page2 = await (await fetch(`${node.url}/account/signup`)).text();
    assert.match(page2, /Ask an administrator/);
  } finally {
    await node?.stop();
    dir.remove();
  }
});
