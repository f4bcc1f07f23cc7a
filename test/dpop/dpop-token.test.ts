// DPoP at the token endpoint (docs/oauth.md "DPoP"), cases DP1–DP21 and DP23–DP29 (DP22 is dpop-replay).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateSecret, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { makeProof, proofKey, unsignedProof, type ProofKey, type ProofOptions } from '../support/dpop.ts';
import {
  basic,
  postForm,
  rawPost,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
} from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const cc = { grant_type: 'client_credentials', scope: 'telegram.list' };

describe('DPoP at the token endpoint (nonces off)', () => {
  let h: AuthHarness;
  let key: ProofKey;
  before(async () => {
    h = await startAuthHarness();
    key = await proofKey('ES256');
  });
  after(async () => h.close());
  // Each case starts in a fresh failure-limit window (the limiter itself is tested in CA11).
  beforeEach(() => h.clock.advance(61_000));

  const iat = () => Math.floor(h.clock.now() / 1000);
  const proof = (o: Partial<ProofOptions> = {}, k = key) =>
    makeProof(k, { htu: h.tokenUrl, iat: iat(), ...o });
  const withProof = (dpop: string, form: Record<string, string> = cc) =>
    postForm(h.tokenUrl, form, { authorization: basic(h.CC.id, h.CC.secret!), dpop });
  async function refused(dpop: string, why = 'invalid_dpop_proof') {
    const r = await withProof(dpop);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json!.error, why);
    return r;
  }

  test('DP1 ES256 proof → DPoP token', async () => {
    const r = await withProof(await proof());
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json!.token_type, 'DPoP');
  });

  test('DP2 EdDSA, PS256, RS256', async () => {
    for (const alg of ['EdDSA', 'PS256', 'RS256'] as const) {
      const r = await withProof(await proof({}, await proofKey(alg)));
      assert.equal(r.status, 200, `${alg}: ${r.text}`);
      assert.equal(r.json!.token_type, 'DPoP');
    }
  });

  test('DP3 not a JWT', async () => {
    for (const bad of ['not-a-jwt', 'a.b', 'a.b.c.d.e', '', '  ']) await refused(bad);
  });

  test('DP4 two DPoP headers', async () => {
    const body = new URLSearchParams(cc).toString();
    const r = await rawPost(h.tokenUrl, body, {
      authorization: basic(h.CC.id, h.CC.secret!),
      dpop: [await proof(), await proof()],
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'invalid_dpop_proof');
  });

  test('DP5 typ missing or wrong', async () => {
    await refused(await proof({ header: { typ: undefined } }));
    await refused(await proof({ header: { typ: 'JWT' } }));
    await refused(await proof({ header: { typ: 'DPOP+JWT' } }));
  });

  test('DP6 alg none', async () => {
    const payload = { jti: 'n1', htm: 'POST', htu: h.tokenUrl, iat: iat() };
    await refused(unsignedProof({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }, payload));
    await refused(unsignedProof({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }, payload, 'AAAA'));
  });

  test('DP7 HS256', async () => {
    const secret = await generateSecret('HS256', { extractable: true });
    const jws = await new SignJWT({ jti: 'h1', htm: 'POST', htu: h.tokenUrl, iat: iat() })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: await exportJWK(secret) })
      .sign(secret);
    await refused(jws);
  });

  test('DP8 unadvertised alg (ES384)', async () => {
    await refused(await proof({}, await proofKey('ES384')));
  });

  test('DP9 jwk missing or not an object', async () => {
    await refused(await proof({ header: { jwk: undefined } }));
    await refused(await proof({ header: { jwk: 'eyJ' } }));
    await refused(await proof({ header: { jwk: [key.publicJwk] } }));
  });

  test('DP10 jwk with private parts', async () => {
    await refused(await proof({ header: { jwk: await exportJWK(key.privateKey) } }));
  });

  test('DP11 symmetric jwk', async () => {
    const oct = await exportJWK(await generateSecret('HS256', { extractable: true }));
    await refused(await proof({ header: { jwk: oct } }));
  });

  test('DP12 bad signature', async () => {
    const [a, b, s] = (await proof()).split('.');
    await refused(`${a}.${b}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`);
  });

  test('DP13 signed by another key', async () => {
    const other = await proofKey('ES256');
    await refused(await proof({ header: { jwk: key.publicJwk } }, other));
  });

  test('DP14 each of jti/htm/htu/iat missing', async () => {
    for (const claim of ['jti', 'htm', 'htu', 'iat']) await refused(await proof({ omit: [claim] }));
  });

  test('DP15 wrong htm', async () => {
    await refused(await proof({ htm: 'GET' }));
    await refused(await proof({ htm: 'post' }));
  });

  test('DP16 wrong htu', async () => {
    await refused(await proof({ htu: h.revokeUrl }));
    await refused(await proof({ htu: h.tokenUrl.replace('127.0.0.1', '127.0.0.2') }));
    await refused(await proof({ htu: h.tokenUrl.replace('http:', 'https:') }));
    await refused(await proof({ htu: 'not a url' }));
  });

  test('DP17 htu with query or fragment accepted', async () => {
    assert.equal((await withProof(await proof({ htu: `${h.tokenUrl}?x=1` }))).status, 200);
    assert.equal((await withProof(await proof({ htu: `${h.tokenUrl}#f` }))).status, 200);
  });

  test('DP18 htu with upper-case host or the default port accepted', async () => {
    const port = new URL(h.origin).port;
    const body = new URLSearchParams(cc).toString();
    const auth = basic(h.CC.id, h.CC.secret!);
    // The public URL follows the Host the client used (no auth URL configured here).
    const upper = await rawPost(h.tokenUrl, body, {
      host: `localhost:${port}`,
      authorization: auth,
      dpop: await proof({ htu: `http://LocalHost:${port}/account/oauth2/v1/token` }),
    });
    assert.equal(upper.status, 200, JSON.stringify(upper.json));
    const defaultPort = await rawPost(h.tokenUrl, body, {
      host: 'localhost',
      authorization: auth,
      dpop: await proof({ htu: 'http://localhost:80/account/oauth2/v1/token' }),
    });
    assert.equal(defaultPort.status, 200, JSON.stringify(defaultPort.json));
  });

  test('DP19 iat an hour off', async () => {
    await refused(await proof({ iat: iat() - 3600 }));
    await refused(await proof({ iat: iat() + 3600 }));
  });

  test('DP20 iat ±10 s accepted (clock moved, not slept)', async () => {
    assert.equal((await withProof(await proof({ iat: iat() - 10 }))).status, 200);
    assert.equal((await withProof(await proof({ iat: iat() + 10 }))).status, 200);
    const p = await proof();
    h.clock.advance(61_000);
    await refused(p);
  });

  test('DP21 replayed proof', async () => {
    const p = await proof();
    assert.equal((await withProof(p)).status, 200);
    await refused(p);
    // The same jti from another key is a different proof.
    const jti = 'shared-jti-' + iat();
    assert.equal((await withProof(await proof({ jti }))).status, 200);
    assert.equal((await withProof(await proof({ jti }, await proofKey('ES256')))).status, 200);
  });

  test('DP23 10 KB jti', async () => {
    await refused(await proof({ jti: 'j'.repeat(10_240) }));
    await refused(await proof({ jti: 'j'.repeat(300) }));
  });

  test('DP26 dpop_jkt mismatch or proof missing → invalid_grant', async () => {
    const jkt = (await import('jose')).calculateJwkThumbprint(key.publicJwk, 'sha256');
    for (const variant of ['other key', 'no proof']) {
      const { code } = await h.code(h.C1, { dpopJkt: await jkt });
      const dpop: Record<string, string> =
        variant === 'other key' ? { dpop: await proof({}, await proofKey('ES256')) } : {};
      const r = await postForm(
        h.tokenUrl,
        { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
        {
          authorization: basic(h.C1.id, h.C1.secret!),
          ...dpop,
        },
      );
      assert.equal(r.status, 400, variant);
      assert.equal(r.json!.error, 'invalid_grant', variant);
    }
    const { code } = await h.code(h.C1, { dpopJkt: await jkt });
    const ok = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
        dpop: await proof(),
      },
    );
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json!.token_type, 'DPoP');
  });

  test('DP27 public client refresh: same key → 200; another key or none → invalid_grant', async () => {
    const as = serverMeta(h);
    const pclient = { client_id: h.P1.id, token_endpoint_auth_method: 'none' };
    const keyPair = await oauth.generateKeyPair('ES256');
    // The library signs with the real clock; tell it how far this test has moved the server's.
    const skew = { [oauth.clockSkew]: Math.round((h.clock.now() - Date.now()) / 1000) };
    const DPoP = oauth.DPoP(skew, keyPair);
    const { code, verifier } = await h.code(h.P1);
    const params = oauth.validateAuthResponse(
      as,
      pclient,
      new URL(`http://127.0.0.1/callback?code=${code}&state=s`),
      's',
    );
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      pclient,
      oauth.None(),
      params,
      'http://127.0.0.1/callback',
      verifier!,
      {
        ...insecure,
        DPoP,
      },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, pclient, res);
    assert.equal(tokens.token_type, 'dpop');
    const same = await oauth.refreshTokenGrantRequest(as, pclient, oauth.None(), tokens.refresh_token!, {
      ...insecure,
      DPoP,
    });
    assert.equal((await oauth.processRefreshTokenResponse(as, pclient, same)).token_type, 'dpop');

    const other = oauth.DPoP(skew, await oauth.generateKeyPair('ES256'));
    const viaOther = await oauth.refreshTokenGrantRequest(as, pclient, oauth.None(), tokens.refresh_token!, {
      ...insecure,
      DPoP: other,
    });
    assert.equal(viaOther.status, 400);
    assert.equal(((await viaOther.json()) as { error: string }).error, 'invalid_grant');
    const none = await postForm(h.tokenUrl, {
      grant_type: 'refresh_token',
      client_id: h.P1.id,
      refresh_token: tokens.refresh_token!,
    });
    assert.equal(none.json!.error, 'invalid_grant');
  });

  test('DP28 confidential client refresh with a new key → 200, bound to the new key', async () => {
    const { code } = await h.code(h.C1);
    const first = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
        dpop: await proof(),
      },
    );
    assert.equal(first.json!.token_type, 'DPoP');
    const fresh = await proofKey('EdDSA');
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'refresh_token', refresh_token: first.json!.refresh_token as string },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
        dpop: await proof({}, fresh),
      },
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json!.token_type, 'DPoP');
    const intro = await postForm(
      h.introspectUrl,
      { token: r.json!.access_token as string },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    const { calculateJwkThumbprint } = await import('jose');
    assert.deepEqual(intro.json!.cnf, { jkt: await calculateJwkThumbprint(fresh.publicJwk, 'sha256') });
  });

  test('DP29 CORS preflight allows the DPoP header and exposes DPoP-Nonce', async () => {
    const pre = await fetch(h.tokenUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://spa.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'dpop, content-type',
      },
    });
    assert.ok(pre.status === 204 || pre.status === 200, String(pre.status));
    assert.match(pre.headers.get('access-control-allow-headers')!, /\bdpop\b/i);
    const r = await withProof(await proof()).then(async () =>
      fetch(h.tokenUrl, {
        method: 'POST',
        headers: {
          origin: 'https://spa.example',
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(h.CC.id, h.CC.secret!),
          dpop: await proof(),
        },
        body: new URLSearchParams(cc),
      }),
    );
    assert.equal(r.status, 200);
    assert.match(r.headers.get('access-control-expose-headers')!, /\bDPoP-Nonce\b/i);
  });
});

describe('DPoP server nonces at the token endpoint (nonces on, the default)', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness({ dpopNonce: true });
  });
  after(async () => h.close());

  const iat = () => Math.floor(h.clock.now() / 1000);

  // Runs first: openid-client signs with the real clock, which DP24 then leaves behind.
  test('DP25 openid-client succeeds with its single automatic nonce retry', async () => {
    const config = new client.Configuration(
      { issuer: h.origin, token_endpoint: h.tokenUrl },
      h.CC.id,
      { client_secret: h.CC.secret! },
      client.ClientSecretBasic(h.CC.secret!),
    );
    client.allowInsecureRequests(config);
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    const tokens = await client.clientCredentialsGrant(config, { scope: 'telegram.list' }, { DPoP });
    assert.equal(tokens.token_type, 'dpop');
    assert.match(tokens.access_token, /^ATn\./);
  });

  test('DP24 nonce missing or stale → 400 use_dpop_nonce with exactly one DPoP-Nonce header', async () => {
    const key = await proofKey('ES256');
    const body = new URLSearchParams(cc).toString();
    const auth = basic(h.CC.id, h.CC.secret!);
    const missing = await rawPost(h.tokenUrl, body, {
      authorization: auth,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat() }),
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error, 'use_dpop_nonce');
    const nonceHeaders = (r: { rawHeaders: string[] }) =>
      r.rawHeaders.filter((_, i) => i % 2 === 0 && r.rawHeaders[i]!.toLowerCase() === 'dpop-nonce').length;
    assert.equal(nonceHeaders(missing), 1, 'exactly one DPoP-Nonce header');
    const nonce = missing.headers['dpop-nonce'];
    // With the nonce: accepted, and the response carries the current nonce.
    const ok = await rawPost(h.tokenUrl, body, {
      authorization: auth,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat(), nonce: nonce as string }),
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.token_type, 'DPoP');
    // A made-up nonce, and the same nonce once two steps (10 min) have passed, are stale.
    const bogus = await rawPost(h.tokenUrl, body, {
      authorization: auth,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat(), nonce: 'made-up' }),
    });
    assert.equal(bogus.json.error, 'use_dpop_nonce');
    h.clock.advance(600_000);
    const stale = await rawPost(h.tokenUrl, body, {
      authorization: auth,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat(), nonce: nonce as string }),
    });
    assert.equal(stale.status, 400);
    assert.equal(stale.json.error, 'use_dpop_nonce');
    assert.equal(nonceHeaders(stale), 1);
    assert.notEqual(stale.headers['dpop-nonce'], nonce);
    // An invalid proof is refused as such, not with a nonce challenge.
    const invalid = await rawPost(h.tokenUrl, body, { authorization: auth, dpop: 'x.y.z' });
    assert.equal(invalid.json.error, 'invalid_dpop_proof');
  });
});
