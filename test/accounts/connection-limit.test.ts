/**
 * The operator's connection limit of an account (docs/operations.md "Connection limits"): set with
 * `namazu account limit` (the real executable) and on the administration's accounts page, it
 * replaces the plans' count in the socket starts' check; `default` (an empty field) goes back to
 * the plans; every bad value is refused and changes nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Browser, signInThroughForm } from '../support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';
import { LANG_COOKIE } from '../../src/console/i18n.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const EMAIL = 'relay@example.com';

let database: TestDatabase;
let server: TestServer | null = null;
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await server?.close();
  await database.drop();
});

/** The real `namazu` on the test database (embedded or PostgreSQL), with no server running. */
function namazu(...args: string[]) {
  const where = database.databaseUrl
    ? ['--database-url', database.databaseUrl]
    : ['--data-dir', database.dataDir];
  const r = spawnSync(process.execPath, [...NODE_FLAGS, NAMAZU_BIN, ...args, ...where], {
    encoding: 'utf8',
    env: cleanEnv({}),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const storedLimit = async (into: TestServer, email = EMAIL) =>
  (
    await into.ctx.db.query<{ connection_limit: number | null }>(
      'SELECT connection_limit FROM accounts WHERE email = $1',
      [email],
    )
  )[0]!.connection_limit;

/** Starts sockets for the account's key until one is refused; the statuses. */
async function startSockets(into: TestServer, key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${into.url}/v2/socket`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      body: JSON.stringify({ classifications: ['eew.forecast'] }),
    });
    statuses.push(res.status);
    await res.body?.cancel();
  }
  return statuses;
}

test('namazu account limit sets, bounds and clears the limit, and the socket starts follow it', async () => {
  assert.equal(namazu('account', 'create', '--email', EMAIL, '--password', 'a long password').status, 0);
  assert.equal(namazu('contract', 'add', '--account', EMAIL, '--plan', 'eew.forecast').status, 0);

  const set = namazu('account', 'limit', '--account', EMAIL, '--connections', '3');
  assert.equal(set.status, 0, set.stderr);
  assert.deepEqual(JSON.parse(set.stdout), { id: 1, email: EMAIL, connectionLimit: 3, connections: 3 });
  for (const bad of ['1000001', 'abc', '1.5', '', 'defaults', '0x10']) {
    const r = namazu('account', 'limit', '--account', EMAIL, '--connections', bad);
    assert.equal(r.status, 2, `--connections ${bad}: ${r.stderr}`);
    assert.match(r.stderr, /--connections/);
  }
  const nobody = namazu('account', 'limit', '--account', 'nobody@example.com', '--connections', '5');
  assert.equal(nobody.status, 1);
  assert.match(nobody.stderr, /no account with email nobody@example.com/);

  server = await startTestServer({ database });
  assert.equal(await storedLimit(server), 3, 'the refused values changed nothing');
  const key = await server.createApiKey(1, ['socket.start', 'eew.get.forecast']);
  // The plan alone gives 1; the operator's 3 replaces it.
  assert.deepEqual(await startSockets(server, key, 4), [200, 200, 200, 409]);
  await server.close();
  server = null;

  const cleared = namazu('account', 'limit', '--account', EMAIL, '--connections', 'default');
  assert.equal(cleared.status, 0, cleared.stderr);
  assert.deepEqual(JSON.parse(cleared.stdout), {
    id: 1,
    email: EMAIL,
    connectionLimit: null,
    connections: 1,
  });
  const zero = namazu('account', 'limit', '--account', EMAIL, '--connections', '0');
  assert.deepEqual(JSON.parse(zero.stdout).connections, 0);
});

test('the administration sets and clears the limit per account; bad values and other people are refused', async () => {
  server = await startTestServer({ database });
  const { account, password } = await server.createAccount({ admin: true });
  const admin = new Browser();
  const gate = await admin.get(`${server.url}/console/admin/accounts`);
  assert.equal(
    (await signInThroughForm(admin, gate.headers.get('location')!, account.email, password)).status,
    303,
  );
  const page = await (await admin.get(`${server.url}/console/admin/accounts`)).text();
  const table = (html: string) => html.slice(html.indexOf('<table id="accounts"'));
  assert.match(table(page), /<input id="limit-1" name="connections"[^>]* value="0"/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const post = (id: number | string, connections: string, token = csrf) =>
    admin.post(`${server!.url}/console/admin/accounts/${id}/limit`, [
      ['csrf', token],
      ['connections', connections],
    ]);

  for (const bad of ['-1', '1000001', 'many', '2.5']) {
    const res = await post(1, bad);
    assert.equal(res.status, 400, bad);
    assert.match(await res.text(), /whole number from 0 to 1000000/);
  }
  // In Japanese, the refusal page says which language it is in.
  admin.cookies.set(LANG_COOKIE, 'ja');
  const inJapanese = await (await post(1, 'many')).text();
  assert.match(inJapanese, /<html lang="ja"/);
  admin.cookies.delete(LANG_COOKIE);
  assert.equal((await post(1, '7', '')).status, 403, 'no CSRF token');
  assert.equal(await storedLimit(server), 0, 'nothing changed');
  assert.equal((await post(999, '5')).status, 404);

  const saved = await post(1, ' 5 ');
  assert.equal(saved.status, 303);
  assert.equal(await storedLimit(server), 5);
  const after = await (await admin.get(saved.headers.get('location')!)).text();
  assert.match(after, /The connection limit was saved/);
  assert.match(table(after), /<input id="limit-1" name="connections"[^>]* value="5"/);
  // The three sessions of the first test still wait for their tickets: 5 leaves room for two.
  const key = await server.createApiKey(1, ['socket.start', 'eew.get.forecast']);
  assert.deepEqual(await startSockets(server, key, 3), [200, 200, 409]);

  assert.equal((await post(1, '')).status, 303);
  assert.equal(await storedLimit(server), null, 'an empty field goes back to the plans');

  // Anyone but an administrator gets 404, and changes nothing.
  const plain = await server.createAccount({});
  const user = new Browser();
  const userGate = await user.get(`${server.url}/console/admin/accounts`);
  assert.equal(
    (await signInThroughForm(user, userGate.headers.get('location')!, plain.account.email, plain.password))
      .status,
    303,
  );
  const own = await (await user.get(`${server.url}/console`)).text();
  const userCsrf = /name="csrf" value="([^"]+)"/.exec(own)?.[1] ?? '';
  const refused = await user.post(`${server.url}/console/admin/accounts/1/limit`, [
    ['csrf', userCsrf],
    ['connections', '9'],
  ]);
  assert.equal(refused.status, 404);
  assert.equal(await storedLimit(server), null);
});
