// Authorization code grant and PKCE at the token endpoint (docs/oauth.md "Authorization code
// grant"), cases T1–T10 and P1–P5.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { disableAccount } from '../../src/accounts/accounts.ts';
import {
  basic,
  isActive,
  newVerifier,
  postForm,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
  type TestClient,
} from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('authorization code grant and PKCE', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(async () => h.close());

  const redeem = (client: TestClient, form: Record<string, string>) =>
    postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', ...form },
      client.secret ? { authorization: basic(client.id, client.secret) } : {},
    );
  const redeemPublic = (form: Record<string, string>) =>
    postForm(h.tokenUrl, { grant_type: 'authorization_code', client_id: h.P1.id, ...form });

  test('T1 happy path through oauth4webapi (confidential C1 and public P1 with S256)', async () => {
    const as = serverMeta(h);
    const { code } = await h.code(h.C1);
    const client = { client_id: h.C1.id };
    const params = oauth.validateAuthResponse(
      as,
      client,
      new URL(`https://app.example/cb?code=${code}&state=s1`),
      's1',
    );
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(h.C1.secret!),
      params,
      'https://app.example/cb',
      oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    assert.equal(tokens.expires_in, 21600);
    assert.equal(tokens.token_type, 'bearer');
    assert.match(tokens.access_token, /^ATn\./);
    assert.match(tokens.refresh_token!, /^ARh\./);
    assert.equal(tokens.scope, 'telegram.list telegram.data');
    assert.equal(await isActive(h, tokens.access_token), true);

    const pub = await h.code(h.P1);
    const pclient = { client_id: h.P1.id, token_endpoint_auth_method: 'none' };
    const pparams = oauth.validateAuthResponse(
      as,
      pclient,
      new URL(`http://127.0.0.1:53682/callback?code=${pub.code}&state=s2`),
      's2',
    );
    const pres = await oauth.authorizationCodeGrantRequest(
      as,
      pclient,
      oauth.None(),
      pparams,
      'http://127.0.0.1/callback',
      pub.verifier!,
      insecure,
    );
    const ptokens = await oauth.processAuthorizationCodeResponse(as, pclient, pres);
    assert.match(ptokens.refresh_token!, /^ARh\./);
  });

  test('T2 missing code → invalid_request', async () => {
    const r = await redeem(h.C1, { redirect_uri: 'https://app.example/cb' });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_request');
  });

  test('T3 unknown code → invalid_grant', async () => {
    for (const code of ['ACe.unknown', 'garbage', 'ACe.' + 'x'.repeat(500)]) {
      const r = await redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' });
      assert.equal(r.status, 400);
      assert.equal(r.json!.error, 'invalid_grant');
    }
  });

  test('T4 expired code (clock + 301 s) → invalid_grant', async () => {
    const { code } = await h.code(h.C1);
    h.clock.advance(301_000);
    const r = await redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_grant');
    // 299 s is still in time.
    const fresh = await h.code(h.C1);
    h.clock.advance(299_000);
    assert.equal(
      (await redeem(h.C1, { code: fresh.code, redirect_uri: 'https://app.example/cb' })).status,
      200,
    );
  });

  test('T5 code of P1 redeemed by C1 → invalid_grant, and P1 can still redeem it', async () => {
    const { code, verifier } = await h.code(h.P1);
    const r = await redeem(h.C1, {
      code,
      code_verifier: verifier!,
      redirect_uri: 'http://127.0.0.1/callback',
    });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_grant');
    const own = await redeemPublic({
      code,
      code_verifier: verifier!,
      redirect_uri: 'http://127.0.0.1/callback',
    });
    assert.equal(own.status, 200);
  });

  test('T6 redirect_uri differs → invalid_redirect_uri', async () => {
    for (const redirect_uri of [
      'https://app.example/cb/',
      'https://APP.example/cb',
      'https://app.example/cb?x=1',
      'https://evil.example/cb',
    ]) {
      const { code } = await h.code(h.C1);
      const r = await redeem(h.C1, { code, redirect_uri });
      assert.equal(r.status, 400, redirect_uri);
      assert.equal(r.json!.error, 'invalid_redirect_uri');
    }
    // Omitted at authorization (one registered URI): the registered one or none is accepted, another is not.
    const omitted = await h.code(h.C1, { redirectUri: null });
    assert.equal(
      (await redeem(h.C1, { code: omitted.code, redirect_uri: 'https://other.example/cb' })).json!.error,
      'invalid_redirect_uri',
    );
    assert.equal(
      (await redeem(h.C1, { code: (await h.code(h.C1, { redirectUri: null })).code })).status,
      200,
    );
    const exact = await h.code(h.C1, { redirectUri: null });
    assert.equal(
      (await redeem(h.C1, { code: exact.code, redirect_uri: 'https://app.example/cb' })).status,
      200,
    );
  });

  test('T7 redirect_uri omitted though sent at authorization → invalid_request', async () => {
    const { code } = await h.code(h.C1);
    const r = await redeem(h.C1, { code });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_request');
  });

  test('T8 code reuse → invalid_grant and the first tokens stop working', async () => {
    const { code } = await h.code(h.C1);
    const first = await redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' });
    assert.equal(first.status, 200);
    const access = first.json!.access_token as string;
    const refresh = first.json!.refresh_token as string;
    assert.equal(await isActive(h, access), true);
    const second = await redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' });
    assert.equal(second.status, 400);
    assert.equal(second.json!.error, 'invalid_grant');
    assert.equal(await isActive(h, access), false);
    const refreshed = await postForm(
      h.tokenUrl,
      { grant_type: 'refresh_token', refresh_token: refresh },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(refreshed.json!.error, 'invalid_grant');
  });

  test('T9 two concurrent redemptions → exactly one succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const { code } = await h.code(h.C1);
      const results = await Promise.all(
        [0, 1].map(() => redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' })),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
      assert.equal(results.find((r) => r.status === 400)!.json!.error, 'invalid_grant');
      // The loser is a reuse of the code, so the winner's tokens are revoked too (RFC 6749 §4.1.2).
      assert.equal(
        await isActive(h, results.find((r) => r.status === 200)!.json!.access_token as string),
        false,
      );
    }
  });

  test('a code whose account was disabled after issuance → invalid_grant, and no token is stored', async () => {
    // Disabling an account ends its sessions and tokens (docs/console-live.md "Administration"): a
    // code still pending then must not bring them back.
    const { db } = h.server.ctx;
    const { account } = await h.server.createAccount();
    const { code } = await h.code(h.C1, { accountId: account.id });
    assert.ok(await disableAccount(db, account.id));
    const r = await redeem(h.C1, { code, redirect_uri: 'https://app.example/cb' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json!.error, 'invalid_grant');
    const stored = await db.query('SELECT 1 FROM oauth_tokens WHERE account_id = $1', [account.id]);
    assert.equal(stored.length, 0);
  });

  test('T10 CC uses the code grant → unauthorized_client', async () => {
    const r = await redeem(h.CC, { code: 'ACe.whatever', redirect_uri: 'https://app.example/cb' });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'unauthorized_client');
  });

  test('P1 correct S256 and plain verifiers → 200', async () => {
    const s256 = await h.code(h.P1);
    assert.equal(
      (
        await redeemPublic({
          code: s256.code,
          code_verifier: s256.verifier!,
          redirect_uri: 'http://127.0.0.1/callback',
        })
      ).status,
      200,
    );
    const verifier = newVerifier();
    const plain = await h.code(h.P1, {
      codeChallenge: verifier,
      codeChallengeMethod: 'plain',
      verifier: null,
    });
    assert.equal(
      (
        await redeemPublic({
          code: plain.code,
          code_verifier: verifier,
          redirect_uri: 'http://127.0.0.1/callback',
        })
      ).status,
      200,
    );
    // A confidential client may use PKCE too.
    const conf = await h.code(h.C1, { verifier: verifier });
    assert.equal(
      (
        await redeem(h.C1, {
          code: conf.code,
          code_verifier: verifier,
          redirect_uri: 'https://app.example/cb',
        })
      ).status,
      200,
    );
  });

  test('P2 verifier missing → invalid_code_verifier', async () => {
    const { code } = await h.code(h.P1);
    const r = await redeemPublic({ code, redirect_uri: 'http://127.0.0.1/callback' });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_code_verifier');
  });

  test('P3 wrong verifier → invalid_code_verifier, and the code is spent', async () => {
    const { code, verifier } = await h.code(h.P1);
    const r = await redeemPublic({
      code,
      code_verifier: newVerifier(),
      redirect_uri: 'http://127.0.0.1/callback',
    });
    assert.equal(r.json!.error, 'invalid_code_verifier');
    const retry = await redeemPublic({
      code,
      code_verifier: verifier!,
      redirect_uri: 'http://127.0.0.1/callback',
    });
    assert.equal(retry.json!.error, 'invalid_grant');
  });

  test('P4 verifier without stored challenge (downgrade) → rejected', async () => {
    const { code } = await h.code(h.C1, { verifier: null });
    const r = await redeem(h.C1, {
      code,
      code_verifier: newVerifier(),
      redirect_uri: 'https://app.example/cb',
    });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_code_verifier');
  });

  test('P5 verifier of illegal length or characters → rejected', async () => {
    for (const bad of [
      'a'.repeat(42),
      'a'.repeat(129),
      'a'.repeat(42) + '!',
      'a'.repeat(42) + ' ',
      'a'.repeat(42) + 'é',
    ]) {
      // A plain challenge equal to the bad verifier: only the verifier rules can reject it.
      const { code } = await h.code(h.P1, {
        codeChallenge: bad,
        codeChallengeMethod: 'plain',
        verifier: null,
      });
      const r = await redeemPublic({ code, code_verifier: bad, redirect_uri: 'http://127.0.0.1/callback' });
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.json!.error, 'invalid_code_verifier');
    }
  });
});
