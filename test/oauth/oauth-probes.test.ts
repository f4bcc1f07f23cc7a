// Probes that held when a running Namazu was attacked (docs/security.md "Standing probes"), kept
// so that they go on holding: redirect-URI look-alikes, a PKCE downgrade to plain, and DPoP proofs
// replayed or aimed elsewhere at the data API. Cases already covered elsewhere are listed in
// docs/security.md with their test file and are not repeated here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { s256Challenge } from '../../src/issuer/pkce.ts';
import { oauthPaths } from '../../src/oauth/metadata.ts';
import { makeProof, proofKey, type ProofKey } from '../support/dpop.ts';
import { basic, newVerifier, postForm, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

describe('OAuth probes', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(() => h.close());

  /** The authorization endpoint's answer, before any sign-in, for `redirect_uri` of a client. */
  async function authorize(clientId: string, redirectUri: string, pkce: boolean): Promise<Response> {
    const url = new URL(h.origin + oauthPaths.authorize);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'telegram.list');
    url.searchParams.set('state', 'probe');
    if (pkce) {
      url.searchParams.set('code_challenge', s256Challenge(newVerifier()));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return fetch(url, { redirect: 'manual' });
  }
  /** Refused: an error page of its own, nothing sent to the URI. */
  async function assertRefused(res: Response, uri: string) {
    assert.equal(res.status, 400, uri);
    assert.equal(res.headers.get('location'), null, uri);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, uri);
    await res.arrayBuffer();
  }
  /** Accepted: the request goes on to sign-in (the URI itself is only used after consent). */
  async function assertAccepted(res: Response, uri: string) {
    assert.equal(res.status, 303, uri);
    assert.match(res.headers.get('location') ?? '', /\/account\/signin\?/, uri);
    await res.arrayBuffer();
  }

  test('redirect URIs: userinfo, extra path, look-alike hosts and encodings are other URIs', async () => {
    const registered = 'https://app.example/cb';
    await assertAccepted(await authorize(h.C1.id, registered, false), registered);
    // An IDN look-alike (Cyrillic "а") and its punycode form, as a browser would send it.
    const lookAlike = 'https://\u0430pp.example/cb';
    for (const uri of [
      'https://user@app.example/cb',
      'https://app.example@evil.example/cb',
      'https://app.example/cb@evil.example',
      'https://app.example\\@evil.example/cb',
      'https://app.example/cb/extra',
      'https://app.example/cb/.',
      'https://app.example/cb?',
      'https://app.example/cb#',
      'https://app.example./cb',
      'https://app.example:8443/cb',
      'https://app%2Eexample/cb',
      'https://app.example/%63b',
      'https://app.example/cb%00',
      'https://app.example/cb%20',
      ' https://app.example/cb',
      'https://app.example/CB',
      lookAlike,
      new URL(lookAlike).href,
      '//app.example/cb',
      'app.example/cb',
    ]) {
      await assertRefused(await authorize(h.C1.id, uri, false), uri);
    }
  });

  test('loopback redirect URIs: only the port may differ', async () => {
    // P1 registered http://127.0.0.1/callback and http://localhost/callback (docs/oauth.md "Redirect URIs").
    for (const uri of ['http://127.0.0.1:53682/callback', 'http://localhost:1/callback']) {
      await assertAccepted(await authorize(h.P1.id, uri, true), uri);
    }
    for (const uri of [
      'http://user@127.0.0.1:53682/callback',
      'http://127.0.0.1:53682@evil.example/callback',
      'http://127.0.0.1:53682/callback#',
      'http://127.0.0.1:53682/Callback',
      'http://127.0.0.1:53682/callback%2F',
      'http://127.0.0.1:53682//callback',
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:65536/callback',
      'http://127.0.0.1:-1/callback',
      'http://127.0.0.1:+80/callback',
      'http://127.0.0.1:0x50/callback',
      'http://[::1]:53682/callback',
      'http://localhost.:53682/callback',
      'http://LOCALHOST:53682/callback',
      'http://2130706433:53682/callback',
      'http://0x7f.0.0.1:53682/callback',
    ]) {
      await assertRefused(await authorize(h.P1.id, uri, true), uri);
    }
  });

  test('PKCE downgrade: a code issued for S256 is not redeemed by its challenge sent as a plain verifier', async () => {
    const redeem = (form: Record<string, string>) =>
      postForm(h.tokenUrl, {
        grant_type: 'authorization_code',
        client_id: h.P1.id,
        redirect_uri: 'http://127.0.0.1/callback',
        ...form,
      });
    const { code, verifier } = await h.code(h.P1);
    // An attacker who saw the authorization request knows the challenge, not the verifier.
    const r = await redeem({ code, code_verifier: s256Challenge(verifier!) });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_code_verifier');
    // Declaring the method at the token endpoint changes nothing: it is the stored one that counts.
    const second = await h.code(h.P1);
    const declared = await redeem({
      code: second.code,
      code_verifier: s256Challenge(second.verifier!),
      code_challenge_method: 'plain',
    });
    assert.equal(declared.status, 400);
    assert.equal(declared.json!.access_token, undefined);
  });

  describe('DPoP proofs at the data API', () => {
    const dataUrl = () => `${h.origin}/v2/telegram`;
    const iat = () => Math.floor(h.clock.now() / 1000);
    let key: ProofKey;
    let token: string;
    before(async () => {
      key = await proofKey('ES256');
      const r = await postForm(
        h.tokenUrl,
        { grant_type: 'client_credentials', scope: 'telegram.list' },
        {
          authorization: basic(h.CC.id, h.CC.secret!),
          dpop: await makeProof(key, { htu: h.tokenUrl, iat: iat() }),
        },
      );
      assert.equal(r.json!.token_type, 'DPoP', r.text);
      token = r.json!.access_token as string;
    });
    const get = (proof: string, url = dataUrl()) =>
      fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    const proof = (o: { htm?: string; htu?: string; iat?: number } = {}) =>
      makeProof(key, { htm: 'GET', htu: dataUrl(), iat: iat(), accessToken: token, ...o });

    test('the same proof twice: the second is refused', async () => {
      const p = await proof();
      assert.equal((await get(p)).status, 200);
      const replay = await get(p);
      assert.equal(replay.status, 401);
      assert.match(replay.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_dpop_proof"/);
    });

    test('a proof for another URL or method, or an old one, is refused', async () => {
      const refused = async (p: string, url?: string) => {
        const res = await get(p, url);
        assert.equal(res.status, 401);
        assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_dpop_proof"/);
      };
      await refused(await proof({ htu: `${h.origin}/v2/contract` }));
      await refused(await proof(), `${h.origin}/v2/contract`);
      await refused(await proof({ htm: 'POST' }));
      await refused(await proof({ iat: iat() - 3600 }));
      // A proof made now and kept: stale once the clock has moved past the accepted window.
      const kept = await proof();
      h.clock.advance(10 * 60_000);
      await refused(kept);
      assert.equal((await get(await proof())).status, 200, 'a fresh proof still works');
    });
  });
});
