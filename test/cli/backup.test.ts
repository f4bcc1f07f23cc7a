/**
 * namazu backup / namazu restore (docs/operations.md, "Backup and restore") with the real server:
 * a backup taken while the server answers requests, restored into a fresh target, serves the same
 * lists, bodies and webhooks to the same API key and OAuth token, and continues the serials. On the
 * embedded database (through the admin channel) or on PostgreSQL (pg_dump) when
 * NAMAZU_TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { backupCommand, restoreCommand } from '../../src/cli/backup.ts';
import { runCommand, type Command } from '../../src/cli/commands.ts';
import { directCommandIo, type CommandIo } from '../../src/cli/database.ts';
import { openDb } from '../../src/db/open.ts';
import { TOKEN_PATH } from '../../src/oauth/token.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { NAMAZU_BIN as BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { auth, cleanEnv, serve, type ServeProcess } from '../support/processes.ts';

const SCOPES = [
  'telegram.list',
  'telegram.data',
  'telegram.get.earthquake',
  'webhook.manage',
  'webhook.list',
];

interface Target {
  dataDir: string;
  databaseUrl: string | null;
}

const commands: Record<string, Command> = { backup: backupCommand, restore: restoreCommand };

/**
 * `namazu <args>` against `target`, run in this process by the command's own code (as bin/namazu.js
 * runs it, admin channel included) without the seconds a new process takes to load.
 */
async function namazu(target: Target, name: string, ...args: string[]) {
  const where = [
    '--data-dir',
    target.dataDir,
    ...(target.databaseUrl ? ['--database-url', target.databaseUrl] : []),
  ];
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    ...directCommandIo,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  };
  const code = await runCommand(name, commands[name]!, [...args, ...where], io);
  return { code, stdout, stderr };
}

/**
 * `namazu ingest` in its own process, as an operator runs it (through the admin channel on the
 * embedded database), awaited without blocking this process: its HTTP connections stay served.
 */
async function ingest(target: Target, ...paths: string[]): Promise<void> {
  const where = [
    '--data-dir',
    target.dataDir,
    ...(target.databaseUrl ? ['--database-url', target.databaseUrl] : []),
  ];
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'ingest', ...paths, ...where], {
    env: cleanEnv({}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 0, stderr);
  assert.equal((JSON.parse(stdout) as { ingested: number }).ingested, paths.length);
}

async function ok(target: Target, name: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await namazu(target, name, ...args);
  assert.equal(r.code, 0, `namazu ${name} ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const serveOn = (t: Target) =>
  serve(t.databaseUrl ? { NAMAZU_DATABASE_URL: t.databaseUrl } : {}, { args: ['--data-dir', t.dataDir] });

/** An account with an earthquake contract, an API key and a client-credentials OAuth client. */
async function credentials(t: Target) {
  const db = await openDb({ ...t, poolSize: 1 });
  try {
    // No NAMAZU_SECRET: the secret is generated and kept in the database, so the backup carries it.
    const pepper = await loadPepper(db, null);
    const account = await createAccount(db, { email: 'owner@example.test', password: 'password-1' });
    await addContract(db, account.id, 'telegram.earthquake');
    const { key } = await createApiKey(db, pepper, account.id, SCOPES);
    const { client, clientSecret } = await createClient(db, pepper, {
      accountId: account.id,
      name: 'Backup test',
      type: 'confidential',
      redirectUris: [],
      grants: ['client_credentials'],
      scopes: SCOPES,
    });
    return { key, clientId: client.clientId, clientSecret: clientSecret! };
  } finally {
    await db.close();
  }
}

/** A fresh, empty PostgreSQL database (not migrated), and how to drop it. */
async function emptyPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `namazu_restore_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: testDatabaseUrl! });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

interface Seen {
  items: Record<string, unknown>[];
  body: string;
}

/** The earthquake list (origins masked: each server has its own port) and the newest body. */
async function read(server: ServeProcess, authorization: Record<string, string>): Promise<Seen> {
  const list = await fetch(`${server.url}/v2/telegram?type=VXSE&limit=100`, { headers: authorization });
  assert.equal(list.status, 200);
  const text = (await list.text()).replaceAll(server.url, 'ORIGIN');
  const items = (JSON.parse(text) as { items: Record<string, unknown>[] }).items;
  assert.ok(items.length > 0, 'the list has telegrams');
  const url = (items[0]!.url as string).replace('ORIGIN', server.url);
  const res = await fetch(url, { headers: authorization });
  assert.equal(res.status, 200);
  return { items, body: await res.text() };
}

test('a backup taken while serving restores into a fresh target with the same data, credentials and serials', async () => {
  const quakes = fixtureIndex().filter((f) => f.type.startsWith('VXSE') && f.status === '通常');
  assert.ok(quakes.length >= 4);
  const work = mkdtempSync(join(tmpdir(), 'namazu-backup-'));
  process.umask(0o022); // a shell's default: a file made without a mode of its own is world-readable
  const original = await createTestDatabase();
  const source: Target = { dataDir: original.dataDir, databaseUrl: original.databaseUrl };
  const fresh = testDatabaseUrl ? await emptyPostgres() : null;
  const restored: Target = { dataDir: join(work, 'restored'), databaseUrl: fresh?.url ?? null };
  let a: ServeProcess | null = null;
  let b: ServeProcess | null = null;
  try {
    const { key, clientId, clientSecret } = await credentials(source);
    a = await serveOn(source);
    await ingest(source, ...quakes.slice(0, 3).map((f) => f.path));

    const tokenRes = await fetch(`${a.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPES.join(' ') }).toString(),
    });
    assert.equal(tokenRes.status, 200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const byKey = auth(key);
    const byToken = { authorization: `Bearer ${token}` };
    const before = await read(a, byKey);
    assert.deepEqual(await read(a, byToken), before);
    // A Misskey webhook with its note options (of a type never sent: nothing is posted).
    const webhook = await fetch(`${a.url}/v2/webhook`, {
      method: 'POST',
      headers: byKey,
      body: JSON.stringify({
        url: 'https://misskey.example.test/api/notes/create',
        classifications: ['telegram.earthquake'],
        types: ['VXSE99'],
        format: 'misskey',
        token: 'misskey-token',
        visibility: 'home',
        localOnly: true,
      }),
    });
    assert.equal(webhook.status, 200);
    const webhooks = async (server: ServeProcess) =>
      (await (await fetch(`${server.url}/v2/webhook`, { headers: byKey })).json()) as { items: unknown[] };
    const webhooksBefore = await webhooks(a);

    // The backup runs while requests keep being answered.
    const file = join(work, 'namazu.backup');
    const backup = namazu(source, 'backup', file);
    let done = false;
    void backup.then(() => (done = true));
    let answered = 0;
    while (!done) {
      const r = await fetch(`${a.url}/v2/telegram?type=VXSE`, { headers: byKey });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      answered++;
    }
    const made = await backup;
    assert.equal(made.code, 0, made.stderr);
    assert.equal((JSON.parse(made.stdout) as { file: string }).file, file);
    assert.ok(answered > 0);
    // It holds the pepper, accounts and telegrams: readable by its owner alone under umask 022.
    assert.equal((statSync(file).mode & 0o777).toString(8), '600');

    // A later telegram is not in the backup.
    await ingest(source, quakes[3]!.path);
    assert.equal((await read(a, byKey)).items.length, before.items.length + 1);

    // Refusals change nothing: an existing backup file, a missing folder, a target that is not
    // empty, a file that is no backup.
    const junk = join(work, 'junk');
    writeFileSync(junk, 'not a backup');
    const [again, noFolder, notEmpty, notBackup] = await Promise.all([
      namazu(source, 'backup', file),
      namazu(source, 'backup', join(work, 'missing', 'namazu.backup')),
      namazu(source, 'restore', file),
      namazu(restored, 'restore', junk),
    ]);
    assert.equal(noFolder.code, 1);
    assert.equal(noFolder.stderr.trim().split('\n').length, 1, noFolder.stderr);
    assert.match(noFolder.stderr, /the folder .*missing does not exist/);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
    assert.equal(notEmpty.code, 1);
    assert.match(notEmpty.stderr, testDatabaseUrl ? /is not empty/ : /in use by process/);
    assert.equal(notBackup.code, 1);
    assert.match(notBackup.stderr, /is not a backup made by namazu backup/);

    await a.stop();
    a = null;
    const back = await ok(restored, 'restore', file);
    assert.equal(back.engine, testDatabaseUrl ? 'postgres' : 'pglite');
    b = await serveOn(restored);
    const after = await read(b, byKey);
    assert.deepEqual(after, before, 'the same list and body, to the same API key');
    assert.deepEqual(await read(b, byToken), before, 'the OAuth token issued before the backup still works');
    const webhooksAfter = await webhooks(b);
    assert.deepEqual(webhooksAfter.items, webhooksBefore.items, 'the webhooks, their note options with them');
    const [misskey] = webhooksAfter.items as { visibility?: string; localOnly?: boolean }[];
    assert.deepEqual([misskey?.visibility, misskey?.localOnly], ['home', true]);
    const wrongKey = await fetch(`${b.url}/v2/telegram`, { headers: auth(key.slice(0, -2) + 'xx') });
    assert.equal(wrongKey.status, 401);

    // Serials continue after the last one the backup holds.
    await ingest(restored, quakes[3]!.path);
    const next = await read(b, byKey);
    const maxBefore = Math.max(...before.items.map((i) => i.serial as number));
    assert.equal(next.items.length, before.items.length + 1);
    assert.ok((next.items[0]!.serial as number) > maxBefore, 'a new telegram takes a serial not used before');

    // A second restore onto the restored target is refused while it serves (or is not empty).
    const twice = await namazu(restored, 'restore', file);
    assert.equal(twice.code, 1);
  } finally {
    await a?.stop();
    await b?.stop();
    await original.drop();
    await fresh?.drop();
    rmSync(work, { recursive: true, force: true });
  }
});

test(
  'an embedded archive without backup_label is refused in one line, and the target stays absent',
  {
    skip: testDatabaseUrl ? 'an embedded-engine archive' : false,
  },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'namazu-backup-label-'));
    const original = await createTestDatabase();
    const source: Target = { dataDir: original.dataDir, databaseUrl: null };
    let a: ServeProcess | null = null;
    try {
      a = await serveOn(source);
      const file = join(work, 'whole.backup');
      await ok(source, 'backup', file);
      // The same archive with backup_label taken out, entries in the same order (manifest first).
      const tree = join(work, 'tree');
      mkdirSync(tree);
      execFileSync('tar', ['-xzf', file, '-C', tree]);
      rmSync(join(tree, 'pg', 'backup_label'));
      const damaged = join(work, 'no-label.backup');
      execFileSync('tar', ['--format=ustar', '-czf', damaged, '-C', tree, 'namazu-backup.json', 'pg']);
      const target: Target = { dataDir: join(work, 'restored'), databaseUrl: null };
      const r = await namazu(target, 'restore', damaged);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /no-label\.backup is incomplete: it holds no pg\/backup_label/);
      assert.doesNotMatch(r.stderr, /ENOENT/);
      const again = await namazu(target, 'restore', file);
      assert.equal(again.code, 0, again.stderr);
    } finally {
      await a?.stop();
      await original.drop();
      rmSync(work, { recursive: true, force: true });
    }
  },
);

test(
  'a truncated embedded backup is refused in one line that says so, and the target stays empty',
  { skip: testDatabaseUrl ? 'an embedded-engine archive' : false },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'namazu-backup-truncated-'));
    const original = await createTestDatabase();
    try {
      const file = join(work, 'whole.backup');
      await ok({ dataDir: original.dataDir, databaseUrl: null }, 'backup', file);
      const whole = readFileSync(file);
      const target: Target = { dataDir: join(work, 'restored'), databaseUrl: null };
      // Cut inside the compressed stream, and just before gzip's trailer (its checksum and length).
      for (const size of [Math.floor(whole.length / 2), whole.length - 4]) {
        const cut = join(work, `cut-${size}.backup`);
        writeFileSync(cut, whole.subarray(0, size));
        const r = await namazu(target, 'restore', cut);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /cut-\d+\.backup is not a Namazu backup, or is damaged/);
        assert.deepEqual(readdirSync(target.dataDir), []);
      }
    } finally {
      await original.drop();
      rmSync(work, { recursive: true, force: true });
    }
  },
);
