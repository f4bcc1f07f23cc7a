import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { approveAuthorization, Browser, parseForms, startHarness, type Harness } from '../support/browser.ts';
import { deleteClient } from '../../src/issuer/client-management.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { issueCode } from '../../src/issuer/codes.ts';
import { basic, postForm } from '../support/oauth.ts';

/**
 * The user revokes an authorization on the account page while its application redeems the code or
 * refreshes (docs/oauth.md "Account page"), or the maker deletes the client while a code is
 * redeemed: whichever comes first, the revocation succeeds and no token survives it. On PostgreSQL the two lock the same rows, so their order
 * decides whether they deadlock; on PGlite they run one after the other.
 */

let h: Harness;
let browser: Browser;
const REDIRECT_URI = 'https://app.example/cb';
const ROUNDS = 15;

before(async () => {
  h = await startHarness();
  browser = new Browser();
});
after(() => h.close());

const tokenUrl = () => `${h.origin}/account/oauth2/v1/token`;
const asC1 = () => ({ authorization: basic(h.clients.C1.client.clientId, h.clients.C1.secret!) });

/** A code of C1, approved by the user through the consent page. */
async function approvedCode(): Promise<string> {
  const url = new URL('/account/oauth2/v1/auth', h.origin);
  for (const [k, v] of Object.entries({
    client_id: h.clients.C1.client.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'telegram.list',
    state: 'race',
  }))
    url.searchParams.set(k, v);
  return (await approveAuthorization(browser, url.href, h.user)).searchParams.get('code')!;
}

/** The account page's Revoke form of the newest authorization. */
async function newestRevokeForm() {
  const page = await (await browser.get(`${h.origin}/account`)).text();
  const form = parseForms(page).find((f) => f.action.includes('/account/authorizations/'));
  assert.ok(form, 'the authorization is listed on the account page');
  return form;
}

async function isActive(token: string): Promise<boolean> {
  const c2 = h.clients.C2;
  const r = await postForm(
    `${h.origin}/account/oauth2/v1/introspect`,
    { token },
    { authorization: basic(c2.client.clientId, c2.secret!) },
  );
  assert.equal(r.status, 200);
  return r.json!.active === true;
}

test('revoking an authorization while its code is redeemed: the revocation succeeds, no token survives', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    // A new failure window each round: a redemption that loses the race is a counted failure.
    h.clock.advance(61_000);
    const code = await approvedCode();
    const revoke = await newestRevokeForm();
    const [redeemed, revoked] = await Promise.all([
      postForm(tokenUrl(), { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, asC1()),
      browser.post(revoke.action, revoke.fields),
    ]);
    assert.equal(revoked.status, 303, `round ${round}: the revocation answered ${revoked.status}`);
    if (redeemed.status === 200) {
      assert.equal(await isActive(redeemed.json!.access_token as string), false);
      assert.equal(await isActive(redeemed.json!.refresh_token as string), false);
    } else assert.equal(redeemed.json!.error, 'invalid_grant');
  }
});

test('revoking an authorization while it is refreshed: the revocation succeeds, no token survives', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    h.clock.advance(61_000);
    const code = await approvedCode();
    const tokens = await postForm(
      tokenUrl(),
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
      asC1(),
    );
    assert.equal(tokens.status, 200);
    const revoke = await newestRevokeForm();
    const [refreshed, revoked] = await Promise.all([
      postForm(
        tokenUrl(),
        { grant_type: 'refresh_token', refresh_token: tokens.json!.refresh_token as string },
        asC1(),
      ),
      browser.post(revoke.action, revoke.fields),
    ]);
    assert.equal(revoked.status, 303, `round ${round}: the revocation answered ${revoked.status}`);
    assert.equal(await isActive(tokens.json!.refresh_token as string), false);
    if (refreshed.status === 200) assert.equal(await isActive(refreshed.json!.access_token as string), false);
    else assert.equal(refreshed.json!.error, 'invalid_grant');
  }
});

test('deleting a client while its code is redeemed: the deletion succeeds, no token survives', async () => {
  const { db, pepper } = h.server.ctx;
  const { account: maker } = await h.server.createAccount();
  for (let round = 0; round < 40; round++) {
    h.clock.advance(61_000);
    const { client, clientSecret } = await createClient(db, pepper, {
      accountId: maker.id,
      name: 'Racing app',
      type: 'confidential',
      redirectUris: [REDIRECT_URI],
      grants: ['authorization_code', 'refresh_token'],
      scopes: ['telegram.list'],
    });
    const { code } = await issueCode(db, pepper, h.clock, {
      clientId: client.clientId,
      accountId: h.user.id,
      redirectUri: REDIRECT_URI,
      scopes: ['telegram.list'],
      codeChallenge: null,
      codeChallengeMethod: null,
      dpopJkt: null,
    });
    const [redeemed, deleted] = await Promise.all([
      postForm(
        tokenUrl(),
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
        { authorization: basic(client.clientId, clientSecret!) },
      ),
      deleteClient(db, maker.id, client.id).then(
        (digests) => ({ digests }),
        (err: unknown) => ({ err }),
      ),
    ]);
    assert.ok(
      'digests' in deleted && deleted.digests,
      `round ${round}: ${String((deleted as { err?: unknown }).err)}`,
    );
    if (redeemed.status === 200) assert.equal(await isActive(redeemed.json!.access_token as string), false);
    else assert.ok([400, 401].includes(redeemed.status), redeemed.text);
  }
});
