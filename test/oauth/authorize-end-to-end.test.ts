import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calculateJwkThumbprint, type JWK } from 'jose';
import * as client from 'openid-client';
import {
  approveAuthorization,
  Browser,
  discoverOverHttp,
  parseForms,
  signInThroughForm,
  startHarness,
  type Harness,
} from '../support/browser.ts';

/**
 * The whole code flow as real clients run it: openid-client builds the request, the user signs in
 * and approves through the HTML forms, openid-client redeems the code (PKCE, and DPoP bound with
 * dpop_jkt), refreshes; then the user revokes the authorization on the account page and every token
 * of it stops working.
 */

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('public client: PKCE + DPoP code flow, refresh, then revocation from the account page', async () => {
  const config = await discoverOverHttp(h.origin, h.clients.P1.client.clientId, client.None());
  const keyPair = await client.randomDPoPKeyPair('ES256');
  const dpop = client.getDPoPHandle(config, keyPair);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const jwk = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
  const thumbprint = await calculateJwkThumbprint(jwk as JWK);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1:49152/callback',
    scope: 'telegram.list telegram.data',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    dpop_jkt: thumbprint,
  });
  const browser = new Browser();
  const callback = await approveAuthorization(browser, url.href, h.user);
  const tokens = await client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state },
    undefined,
    { DPoP: dpop },
  );
  assert.equal(tokens.token_type.toLowerCase(), 'dpop');
  assert.equal(tokens.expires_in, 21600);
  assert.equal(tokens.scope, 'telegram.list telegram.data');
  assert.match(tokens.refresh_token!, /^ARh\./);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
  assert.match(refreshed.access_token, /^ATn\./);

  const page = await (await browser.get(`${h.origin}/account`)).text();
  const revoke = parseForms(page).find((f) => f.action.includes('/account/authorizations/'))!;
  assert.equal((await browser.post(revoke.action, revoke.fields)).status, 303);
  await assert.rejects(
    client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop }),
    (err: unknown) => (err as { error?: string }).error === 'invalid_grant',
  );
});

test('confidential client: form_post response redeemed by openid-client', async () => {
  const c1 = h.clients.C1;
  const config = await discoverOverHttp(h.origin, c1.client.clientId, client.ClientSecretBasic(c1.secret!));
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'https://app.example/cb',
    scope: 'telegram.list',
    state,
    response_mode: 'form_post',
  });
  const browser = new Browser();
  let res = await browser.get(url.href);
  await signInThroughForm(browser, res.headers.get('location')!, h.user.email, h.user.password);
  res = await browser.get(url.href);
  const posted = await browser.submit(await res.text(), '/auth/consent', [['decision', 'approve']]);
  assert.equal(posted.status, 200);
  const form = parseForms(await posted.text())[0]!;
  // What the browser would POST to the client's callback, handed to openid-client as that request.
  const request = new Request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form.fields).toString(),
  });
  const tokens = await client.authorizationCodeGrant(config, request, { expectedState: state });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.scope, 'telegram.list');
});
