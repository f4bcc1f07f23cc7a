// The resource-server side (docs/oauth.md "Resource server"), cases RS1–RS7 and RS9, on the real
// data API routes: GET /v2/telegram (cached credential checks) and GET /v2/contract (checked at
// once).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { channels } from '../../src/bus/types.ts';
import { makeProof, proofKey, type ProofKey } from '../support/dpop.ts';
import { basic, postForm, serverMeta, startAuthHarness, type AuthHarness } from '../support/oauth.ts';
import { waitFor } from '../support/wait.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('resource server: Bearer and DPoP access tokens', () => {
  let h: AuthHarness;
  let probeUrl: string;
  let contractUrl: string;
  before(async () => {
    h = await startAuthHarness({ dpopNonce: true });
    probeUrl = `${h.origin}/v2/telegram`;
    contractUrl = `${h.origin}/v2/contract`;
  });
  after(() => h.close());

  const iat = () => Math.floor(h.clock.now() / 1000);
  const get = (headers: Record<string, string>, url = probeUrl) => fetch(url, { headers });

  async function bearerToken(scope = 'telegram.list'): Promise<string> {
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials', scope },
      { authorization: basic(h.CC.id, h.CC.secret!) },
    );
    assert.equal(r.status, 200, r.text);
    return r.json!.access_token as string;
  }
  /** A DPoP-bound token for `key`, through the token endpoint's nonce challenge. */
  async function dpopToken(key: ProofKey): Promise<string> {
    const headers = { authorization: basic(h.CC.id, h.CC.secret!) };
    const form = { grant_type: 'client_credentials', scope: 'telegram.list' };
    const first = await postForm(h.tokenUrl, form, {
      ...headers,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat() }),
    });
    assert.equal(first.json!.error, 'use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce')!;
    const r = await postForm(h.tokenUrl, form, {
      ...headers,
      dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat(), nonce }),
    });
    assert.equal(r.json!.token_type, 'DPoP', r.text);
    return r.json!.access_token as string;
  }
  /** The resource's current nonce, from its challenge to a proof without one. */
  async function resourceNonce(key: ProofKey, token: string): Promise<string> {
    const res = await get({
      authorization: `DPoP ${token}`,
      dpop: await makeProof(key, { htm: 'GET', htu: probeUrl, iat: iat(), accessToken: token }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /^DPoP .*error="use_dpop_nonce"/);
    return res.headers.get('dpop-nonce')!;
  }
  async function dpopGet(
    key: ProofKey,
    token: string,
    o: { scheme?: string; nonce?: string; ath?: string } = {},
  ) {
    const nonce = o.nonce ?? (await resourceNonce(key, token));
    return get({
      authorization: `${o.scheme ?? 'DPoP'} ${token}`,
      dpop: await makeProof(key, {
        htm: 'GET',
        htu: probeUrl,
        iat: iat(),
        nonce,
        accessToken: o.ath ?? token,
      }),
    });
  }

  test('RS1 Bearer', async () => {
    const token = await bearerToken();
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, 'ok');
    // Through oauth4webapi as a client would call it.
    const viaLib = await oauth.protectedResourceRequest(
      token,
      'GET',
      new URL(probeUrl),
      undefined,
      undefined,
      insecure,
    );
    assert.equal(viaLib.status, 200);
  });

  test('RS2 a DPoP-bound token sent as Bearer → 401', async () => {
    const key = await proofKey();
    const token = await dpopToken(key);
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.status, 401);
    assert.deepEqual(((await res.json()) as { error: unknown }).error, {
      message: 'Authentication required.',
      code: 401,
    });
    assert.match(res.headers.get('www-authenticate')!, /^DPoP /);
    // With a valid proof alongside, still refused under the Bearer scheme.
    const withProof = await get({
      authorization: `Bearer ${token}`,
      dpop: await makeProof(key, { htm: 'GET', htu: probeUrl, iat: iat(), accessToken: token }),
    });
    assert.equal(withProof.status, 401);
  });

  test('RS3 DPoP scheme without proof → 401 with a DPoP challenge', async () => {
    const key = await proofKey();
    const token = await dpopToken(key);
    const res = await get({ authorization: `DPoP ${token}` });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate')!;
    assert.match(challenge, /^DPoP /);
    assert.match(challenge, /algs="ES256 EdDSA PS256 RS256"/);
    // A valid proof, with the resource's nonce: 200 via DPoP.
    const ok = await dpopGet(key, token);
    assert.equal(ok.status, 200);
  });

  test('RS4 wrong ath → 401', async () => {
    const key = await proofKey();
    const token = await dpopToken(key);
    const res = await dpopGet(key, token, { ath: 'ATn.some-other-token' });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /error="invalid_dpop_proof"/);
  });

  test('RS5 proof key ≠ bound key → 401', async () => {
    const key = await proofKey();
    const token = await dpopToken(key);
    const other = await proofKey();
    const nonce = await resourceNonce(key, token);
    const res = await get({
      authorization: `DPoP ${token}`,
      dpop: await makeProof(other, { htm: 'GET', htu: probeUrl, iat: iat(), nonce, accessToken: token }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /^DPoP .*error="invalid_token"/);
    // A bearer token presented under the DPoP scheme is not bound to anything: refused too.
    const bearer = await bearerToken();
    const unbound = await dpopGet(key, bearer, { nonce: nonce });
    assert.equal(unbound.status, 401);
    assert.match(unbound.headers.get('www-authenticate')!, /not bound/);
  });

  test('RS6 scheme names are case-insensitive', async () => {
    const token = await bearerToken();
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      assert.equal((await get({ authorization: `${scheme} ${token}` })).status, 200, scheme);
    }
    const key = await proofKey();
    const bound = await dpopToken(key);
    for (const scheme of ['dpop', 'DPOP', 'dPoP']) {
      assert.equal((await dpopGet(key, bound, { scheme })).status, 200, scheme);
    }
  });

  test('RS7 expired token → 401', async () => {
    const token = await bearerToken();
    assert.equal((await get({ authorization: `Bearer ${token}` })).status, 200);
    h.clock.advance(21_601_000);
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /^Bearer .*error="invalid_token"/);
  });

  test('RS7 revoked token → 401: at once when announced, within 60 s otherwise, at once on /v2/contract', async () => {
    const announced = await bearerToken();
    assert.equal((await get({ authorization: `Bearer ${announced}` })).status, 200);
    // Subscribed after the server's own handlers, which the bus serves first: once this one has
    // the announcement, the server's credential cache has dropped the token.
    const heard: string[] = [];
    const unsubscribe = await h.server.ctx.bus.subscribe(channels.revoked, (p) => heard.push(p));
    const rev = await postForm(
      h.revokeUrl,
      { token: announced },
      { authorization: basic(h.CC.id, h.CC.secret!) },
    );
    assert.equal(rev.status, 200);
    await waitFor(() => heard.length > 0, { message: 'the revocation announcement' });
    await unsubscribe();
    assert.equal((await get({ authorization: `Bearer ${announced}` })).status, 401);

    // Deleted behind the service's back (no announcement): the cache may answer for at most 60 s.
    const silent = await bearerToken();
    assert.equal((await get({ authorization: `Bearer ${silent}` })).status, 200);
    await h.server.ctx.db.query('DELETE FROM oauth_tokens WHERE client_id = $1', [h.CC.id]);
    // The telegram list may trust its cache a little longer; the contract API checks at once (and
    // the miss evicts the cached entry for everyone).
    assert.equal((await get({ authorization: `Bearer ${silent}` })).status, 200);
    assert.equal((await get({ authorization: `Bearer ${silent}` }, contractUrl)).status, 401);
    assert.equal((await get({ authorization: `Bearer ${silent}` })).status, 401);
    const again = await bearerToken();
    assert.equal((await get({ authorization: `Bearer ${again}` })).status, 200);
    await h.server.ctx.db.query('DELETE FROM oauth_tokens WHERE client_id = $1', [h.CC.id]);
    h.clock.advance(60_000);
    assert.equal((await get({ authorization: `Bearer ${again}` })).status, 401);
  });

  test('RS9 missing scope → 403', async () => {
    const token = await bearerToken('contract.list');
    const res = await get({ authorization: `Bearer ${token}` });
    assert.equal(res.status, 403);
    assert.deepEqual(((await res.json()) as { error: unknown }).error, {
      message: 'Insufficient scope for `telegram.list`.',
      code: 403,
    });
  });

  test('unknown tokens, junk and oversized values → 401, never 5xx', async () => {
    for (const authorization of [
      'Bearer ATn.unknown',
      'Bearer ',
      'Bearer ' + 'A'.repeat(5000),
      'DPoP ATn.unknown',
      'DPoP',
    ]) {
      const res = await get({ authorization });
      assert.equal(res.status, 401, authorization);
    }
  });

  test('oauth4webapi drives the resource nonce challenge with one retry', async () => {
    const client = { client_id: h.CC.id };
    const as = serverMeta(h);
    const skew = { [oauth.clockSkew]: Math.round((h.clock.now() - Date.now()) / 1000) };
    const DPoP = oauth.DPoP(skew, await oauth.generateKeyPair('ES256'));
    const tokenCall = () =>
      oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(h.CC.secret!),
        { scope: 'telegram.list' },
        { ...insecure, DPoP },
      );
    let tokens: oauth.TokenEndpointResponse;
    try {
      tokens = await oauth.processClientCredentialsResponse(as, client, await tokenCall());
    } catch (err) {
      assert.ok(oauth.isDPoPNonceError(err));
      tokens = await oauth.processClientCredentialsResponse(as, client, await tokenCall());
    }
    const call = () =>
      oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(probeUrl), undefined, undefined, {
        ...insecure,
        DPoP,
      });
    let res: Response;
    try {
      res = await call();
    } catch (err) {
      assert.ok(oauth.isDPoPNonceError(err));
      res = await call();
    }
    assert.equal(res.status, 200);
  });
});
