/**
 * A form that makes a credential shown once, sent twice at the same instant (a fast double click, the
 * answer reloaded in two tabs): exactly one credential is made, the other answer says it was sent
 * already. On PostgreSQL both requests are held at the account's (or the client's) row lock, where
 * the creation runs one after the other, and released together; PGlite runs one transaction at a
 * time, so there they are only sent at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listApiKeys } from '../../src/accounts/api-keys.ts';
import { listClientsOf } from '../../src/issuer/client-management.ts';
import { createClient, verifyClientSecret } from '../../src/issuer/clients.ts';
import { listSubscriptions } from '../../src/webhooks/subscriptions.ts';
import { parseForms, signedInBrowser, type Browser } from '../support/browser.ts';
import { heldTransaction, lockWaiters } from '../support/races.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { webhookAllowPrivate: true } });
});
after(() => server.close());

async function signedIn(): Promise<{ id: number; browser: Browser }> {
  const { account, password } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  return { id: account.id, browser: await signedInBrowser(server.url, account.email, password) };
}

/** The form of `page` posting to `path`, with its hidden fields and the `filled` ones. */
async function formOf(browser: Browser, page: string, path: string, filled: [string, string][] = []) {
  const html = await (await browser.get(`${server.url}${page}`)).text();
  const form = parseForms(html).find((f) => new URL(f.action).pathname === path);
  assert.ok(form, `a form posting to ${path}`);
  return { action: form.action, fields: [...form.fields, ...filled] };
}

/** Posts the form, reads the answer whole; its status and body. */
async function post(browser: Browser, form: { action: string; fields: [string, string][] }) {
  const res = await browser.post(form.action, form.fields);
  return { status: res.status, body: await res.text() };
}

/**
 * The statuses of two calls of `send` at once, sorted. On PostgreSQL the row `lock` names is held
 * until both requests wait for it, so that both have passed every step before their transaction.
 */
async function twiceAtOnce(
  send: () => Promise<{ status: number }>,
  lock: { table: 'accounts' | 'oauth_clients'; id: number },
): Promise<number[]> {
  const statuses = async (both: Promise<{ status: number }[]>) => (await both).map((a) => a.status).sort();
  const { db } = server.ctx;
  if (db.engine !== 'postgres') return statuses(Promise.all([send(), send()]));
  const held = heldTransaction(db, (q) =>
    q.query(`SELECT id FROM ${lock.table} WHERE id = $1 FOR UPDATE`, [lock.id]),
  );
  await held.started;
  const answers = Promise.all([send(), send()]);
  await lockWaiters(db, 2);
  held.release();
  await held.done;
  return statuses(answers);
}

test('a webhook form sent twice at once makes one webhook', async () => {
  const { id, browser } = await signedIn();
  const form = await formOf(browser, '/account/webhooks/new', '/account/webhooks', [
    ['url', 'https://hooks.example.test/at-once'],
    ['format', 'namazu'],
    ['lang', 'ja'],
    ['classifications', 'telegram.earthquake'],
    ['test', 'no'],
    ['formatMode', 'raw'],
  ]);
  assert.deepEqual(await twiceAtOnce(() => post(browser, form), { table: 'accounts', id }), [201, 409]);
  assert.equal((await listSubscriptions(server.ctx.db, id)).length, 1);
});

test('an API key form sent twice at once makes one key', async () => {
  const { id, browser } = await signedIn();
  const form = await formOf(browser, '/account/keys', '/account/keys', [['scope', 'telegram.list']]);
  assert.deepEqual(await twiceAtOnce(() => post(browser, form), { table: 'accounts', id }), [201, 409]);
  assert.equal((await listApiKeys(server.ctx.db, id)).items.length, 1);
});

test('an OAuth client form sent twice at once registers one client', async () => {
  const { id, browser } = await signedIn();
  const form = await formOf(browser, '/account/clients/new', '/account/clients', [
    ['name', 'Double click'],
    ['type', 'confidential'],
    ['redirectUris', 'https://app.example.test/callback'],
    ['grant', 'authorization_code'],
    ['scope', 'telegram.list'],
  ]);
  assert.deepEqual(await twiceAtOnce(() => post(browser, form), { table: 'accounts', id }), [201, 409]);
  assert.equal((await listClientsOf(server.ctx.db, id)).length, 1);
});

test('"Issue a new secret" sent twice at once issues one, which works', async () => {
  const { id, browser } = await signedIn();
  const { client } = await createClient(server.ctx.db, server.ctx.pepper, {
    accountId: id,
    name: 'Rotated',
    type: 'confidential',
    grants: ['client_credentials'],
    redirectUris: [],
    scopes: ['telegram.list'],
  });
  const path = `/account/clients/${client.id}/secret`;
  const form = await formOf(browser, `/account/clients/${client.id}`, path);
  const secrets: string[] = [];
  const send = async () => {
    const answer = await post(browser, form);
    const secret = /<code id="new-secret">([^<]+)<\/code>/.exec(answer.body)?.[1];
    if (secret) secrets.push(secret);
    return answer;
  };
  assert.deepEqual(await twiceAtOnce(send, { table: 'oauth_clients', id: client.id }), [200, 409]);
  assert.equal(secrets.length, 1);
  assert.ok(await verifyClientSecret(server.ctx.db, server.ctx.pepper, client.clientId, secrets[0]!));
});
