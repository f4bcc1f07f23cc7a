import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { NAMAZU_BIN, SOURCE_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { engineFree } from '../support/engine.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}, bin = NAMAZU_BIN): Promise<Run> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('NAMAZU_') || k.startsWith('NAMAZU_TEST_')),
    );
    const child = spawn(process.execPath, [...NODE_FLAGS, bin, ...args], { env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let database: TestDatabase;
let dbEnv: Record<string, string>;
before(async () => {
  database = await createTestDatabase();
  dbEnv = database.databaseUrl
    ? { NAMAZU_DATABASE_URL: database.databaseUrl }
    : { NAMAZU_DATA_DIR: database.dataDir };
});
after(() => database.drop());

/** One JSON object on stdout, nothing else. */
function json(r: Run): Record<string, unknown> {
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, r.stdout);
  return JSON.parse(lines[0]!);
}

test('account, API key and contract commands answer one JSON object each', async () => {
  const account = json(
    await run(
      [
        'account',
        'create',
        '--email',
        'Ops@Example.test',
        '--password',
        'correct horse',
        '--name',
        'Ops',
        '--admin',
      ],
      dbEnv,
    ),
  );
  assert.equal(typeof account.id, 'number');
  assert.equal(account.email, 'ops@example.test');

  const key = json(
    await run(
      ['apikey', 'create', '--account', 'ops@example.test', '--scopes', 'telegram.list  contract.list'],
      dbEnv,
    ),
  );
  assert.match(key.key as string, /^AKe\.[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(key.scopes, ['telegram.list', 'contract.list']);

  const added = json(
    await run(['contract', 'add', '--account', 'ops@example.test', '--plan', 'telegram.earthquake'], dbEnv),
  );
  assert.equal(added.plan, 'telegram.earthquake');
  assert.equal(added.isValid, true);
  const again = json(
    await run(['contract', 'add', '--account', 'ops@example.test', '--plan', 'telegram.earthquake'], dbEnv),
  );
  assert.equal(again.id, added.id, 'adding a running contract again changes nothing');

  const removed = json(
    await run(
      ['contract', 'remove', '--account', 'ops@example.test', '--plan', 'telegram.earthquake'],
      dbEnv,
    ),
  );
  assert.equal(removed.removed, true);
  const removedAgain = json(
    await run(
      ['contract', 'remove', '--account', 'ops@example.test', '--plan', 'telegram.earthquake'],
      dbEnv,
    ),
  );
  assert.equal(removedAgain.removed, false);

  const migrated = json(await run(['migrate'], dbEnv));
  assert.ok((migrated.migrations as string[]).includes('001_accounts.sql'));
});

test('domain errors are one line on stderr and exit 1', async () => {
  const dup = await run(
    ['account', 'create', '--email', 'dup@example.test', '--password', 'long enough'],
    dbEnv,
  );
  assert.equal(dup.code, 0);
  for (const args of [
    ['account', 'create', '--email', 'dup@example.test', '--password', 'long enough'],
    ['account', 'create', '--email', 'short@example.test', '--password', 'short'],
    ['apikey', 'create', '--account', 'nobody@example.test', '--scopes', 'telegram.list'],
    ['apikey', 'create', '--account', 'dup@example.test', '--scopes', 'telegram.list no.such.scope'],
    ['contract', 'add', '--account', 'dup@example.test', '--plan', 'telegram.nothing'],
  ]) {
    const r = await run(args, dbEnv);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});

test('bad usage exits 2 with a message', engineFree, async () => {
  for (const args of [
    [],
    ['frobnicate'],
    ['account', 'create', '--email', 'x@example.test'],
    ['account', 'create', '--email', 'x@example.test', '--password', 'long enough', '--bogus'],
    ['contract', 'swap', '--account', 'x', '--plan', 'y'],
    ['serve', '--port', 'eighty'],
  ]) {
    const r = await run(args, dbEnv);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stderr.length > 0 || r.stdout.includes('usage'));
  }
});

test('bad configuration gives one line naming the setting', engineFree, async () => {
  const r = await run(['migrate'], { ...dbEnv, NAMAZU_POLLING_INTERVAL_MS: 'soon' });
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim(), 'namazu migrate: NAMAZU_POLLING_INTERVAL_MS must be an integer, got "soon"');
});

// Through bin/namazu.js, as a checkout runs without a build (the sources through tsx).
test('an unreachable database gives one line and exit 1', async () => {
  const r = await run(['migrate'], { NAMAZU_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, SOURCE_BIN);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim(), 'namazu migrate: cannot reach the database: ECONNREFUSED 127.0.0.1:1');
});
