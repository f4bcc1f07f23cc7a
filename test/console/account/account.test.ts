import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccount } from '../../../src/accounts/accounts.ts';
import { issueCode } from '../../../src/issuer/codes.ts';
import { channels } from '../../../src/bus/types.ts';
import { Browser, parseForms, signInThroughForm, startHarness, type Harness } from '../../support/browser.ts';
import { waitFor } from '../../support/wait.ts';
import { testFetch } from '../../support/fetch.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ listen: false });
});
after(() => h.close());

async function signedIn(email: string, password: string): Promise<Browser> {
  const browser = new Browser();
  const res = await signInThroughForm(
    browser,
    `${h.origin}/account/signin?return_to=%2Faccount`,
    email,
    password,
  );
  assert.equal(res.status, 303);
  return browser;
}

/** Approves C1 for the signed-in user through the consent form; returns the grant id. */
async function approveC1(browser: Browser): Promise<number> {
  const url = new URL(`${h.origin}/account/oauth2/v1/auth`);
  url.search = new URLSearchParams({
    client_id: h.clients.C1.client.clientId,
    response_type: 'code',
    scope: 'telegram.list contract.list',
    state: 's',
  }).toString();
  const consent = await browser.get(url.href);
  assert.equal(consent.status, 200);
  const res = await browser.submit(await consent.text(), '/auth/consent', [['decision', 'approve']]);
  assert.equal(res.status, 303);
  const rows = await h.server.ctx.db.query<{ id: number }>(
    'SELECT id FROM oauth_grants WHERE account_id = $1 ORDER BY id DESC LIMIT 1',
    [h.user.id],
  );
  return rows[0]!.id;
}

test('the account page lists granted authorizations; revoking deletes the grant, its codes and tokens', async () => {
  const browser = await signedIn(h.user.email, h.user.password);
  const grantId = await approveC1(browser);
  // A token issued from this authorization (as the token endpoint would store it).
  await h.server.ctx.db.query(
    `INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, account_id, scopes, expires_at)
     VALUES ('digest-of-a-refresh-token', 'refresh', $1, $2, $3, $4, $5)`,
    [
      grantId,
      h.clients.C1.client.clientId,
      h.user.id,
      ['telegram.list'],
      new Date(h.clock.now() + 86_400_000),
    ],
  );

  const page = await (await browser.get(`${h.origin}/account`)).text();
  assert.ok(page.includes('App One'));
  assert.ok(page.includes('telegram.list contract.list'));
  const revoke = parseForms(page).find((f) =>
    f.action.endsWith(`/account/authorizations/${grantId}/revoke`),
  )!;
  assert.ok(revoke);

  assert.equal((await browser.post(revoke.action, [['csrf', 'wrong']])).status, 403);
  assert.equal(
    (await h.server.ctx.db.query('SELECT 1 FROM oauth_grants WHERE id = $1', [grantId])).length,
    1,
  );

  const announced: string[] = [];
  const unsubscribe = await h.server.ctx.bus.subscribe(channels.revoked, (p) => announced.push(p));
  const done = await browser.post(revoke.action, revoke.fields);
  assert.equal(done.status, 303);
  // The bus delivers in order: once a marker published now arrives, so has every announcement
  // the revocation made.
  const marker = JSON.stringify({ digest: 'marker' });
  await h.server.ctx.bus.publish(channels.revoked, marker);
  await waitFor(() => announced.includes(marker), { message: 'the marker' });
  await unsubscribe();
  // Every process drops the tokens from its credential cache at once.
  assert.deepEqual(announced, [JSON.stringify({ digest: 'digest-of-a-refresh-token' }), marker]);
  assert.equal(done.headers.get('location'), `${h.origin}/account?revoked=1`);
  const db = h.server.ctx.db;
  assert.equal((await db.query('SELECT 1 FROM oauth_grants WHERE id = $1', [grantId])).length, 0);
  assert.equal((await db.query('SELECT 1 FROM oauth_codes WHERE grant_id = $1', [grantId])).length, 0);
  assert.equal((await db.query('SELECT 1 FROM oauth_tokens WHERE grant_id = $1', [grantId])).length, 0);
  const after = await (await browser.get(`${h.origin}/account?revoked=1`)).text();
  assert.ok(after.includes('was revoked'));
  assert.ok(!after.includes(`/authorizations/${grantId}/revoke`));
});

test("an account cannot revoke another account's authorization", async () => {
  const owner = await signedIn(h.user.email, h.user.password);
  const grantId = await approveC1(owner);
  const email = `other-${Math.random().toString(36).slice(2)}@example.com`;
  await createAccount(h.server.ctx.db, { email, password: 'another password' });
  const intruder = await signedIn(email, 'another password');
  const page = await (await intruder.get(`${h.origin}/account`)).text();
  assert.ok(page.includes('You have not authorized any application.'));
  const csrf = parseForms(page).find((f) => f.action.endsWith('/account/signout'))!.fields;
  const res = await intruder.post(`${h.origin}/account/authorizations/${grantId}/revoke`, csrf);
  assert.equal(res.status, 404);
  assert.equal(
    (await h.server.ctx.db.query('SELECT 1 FROM oauth_grants WHERE id = $1', [grantId])).length,
    1,
  );
});

test('expired, unredeemed authorizations are not listed', async () => {
  const { grantId } = await issueCode(h.server.ctx.db, h.server.ctx.pepper, h.clock, {
    clientId: h.clients.C2.client.clientId,
    accountId: h.user.id,
    redirectUri: null,
    scopes: ['telegram.data'],
    codeChallenge: null,
    codeChallengeMethod: null,
    dpopJkt: null,
  });
  const browser = await signedIn(h.user.email, h.user.password);
  assert.ok(
    (await (await browser.get(`${h.origin}/account`)).text()).includes(`/authorizations/${grantId}/revoke`),
  );
  h.clock.advance(301_000);
  assert.ok(
    !(await (await browser.get(`${h.origin}/account`)).text()).includes(`/authorizations/${grantId}/revoke`),
  );
});

test('the account page needs a session', async () => {
  const res = await testFetch(`${h.origin}/account`, { redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.match(res.headers.get('location')!, /\/account\/signin\?return_to=%2Faccount$/);
  const post = await testFetch(`${h.origin}/account/authorizations/1/revoke`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'csrf=x',
  });
  assert.equal(post.status, 303);
});
