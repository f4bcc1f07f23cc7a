// RFC 7662 introspection for resource servers: authenticated confidential clients only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateJwkThumbprint } from 'jose';
import * as oauth from 'oauth4webapi';
import { makeProof, proofKey } from '../support/dpop.ts';
import { basic, postForm, serverMeta, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('introspection endpoint', () => {
  let h: AuthHarness;
  let access: string;
  let refresh: string;
  before(async () => {
    h = await startAuthHarness();
    const { code } = await h.code(h.C1);
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    access = r.json!.access_token as string;
    refresh = r.json!.refresh_token as string;
  });
  after(async () => h.close());

  const introspect = (token: string, as = h.C2) =>
    postForm(h.introspectUrl, { token }, { authorization: basic(as.id, as.secret!) });

  test('an access token is described to any authenticated confidential client (oauth4webapi)', async () => {
    const as = serverMeta(h);
    const client = { client_id: h.C2.id };
    const res = await oauth.introspectionRequest(
      as,
      client,
      oauth.ClientSecretBasic(h.C2.secret!),
      access,
      insecure,
    );
    const body = await oauth.processIntrospectionResponse(as, client, res);
    assert.equal(body.active, true);
    assert.equal(body.client_id, h.C1.id);
    assert.equal(body.scope, 'telegram.list telegram.data');
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.sub, String(h.account.id));
    assert.equal(body.exp! - body.iat!, 21600);
  });

  test('a DPoP-bound token carries cnf.jkt', async () => {
    const key = await proofKey('ES256');
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials', scope: 'telegram.list' },
      {
        authorization: basic(h.CC.id, h.CC.secret!),
        dpop: await makeProof(key, { htu: h.tokenUrl, iat: Math.floor(h.clock.now() / 1000) }),
      },
    );
    const body = (await introspect(r.json!.access_token as string)).json!;
    assert.equal(body.token_type, 'DPoP');
    assert.deepEqual(body.cnf, { jkt: await calculateJwkThumbprint(key.publicJwk, 'sha256') });
  });

  test('refresh tokens only to their own client; unknown and malformed tokens are inactive', async () => {
    assert.deepEqual((await introspect(refresh, h.C2)).json, { active: false });
    assert.equal((await introspect(refresh, h.C1)).json!.active, true);
    for (const token of ['ATn.unknown', 'junk', 'x'.repeat(500)]) {
      assert.deepEqual((await introspect(token)).json, { active: false });
    }
  });

  test('expired tokens are inactive', async () => {
    const { code } = await h.code(h.C1);
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/cb' },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    h.clock.advance(21_601_000);
    assert.deepEqual((await introspect(r.json!.access_token as string)).json, { active: false });
  });

  test('unauthenticated, wrongly authenticated and public clients are refused', async () => {
    const anonymous = await postForm(h.introspectUrl, { token: access });
    assert.equal(anonymous.status, 400);
    const wrong = await postForm(
      h.introspectUrl,
      { token: access },
      { authorization: basic(h.C2.id, 'CSt.wrong') },
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json!.error, 'invalid_client');
    const pub = await postForm(h.introspectUrl, { token: access, client_id: h.P1.id });
    assert.equal(pub.status, 401);
    assert.equal(pub.json!.error, 'invalid_client');
    const missing = await postForm(h.introspectUrl, {}, { authorization: basic(h.C2.id, h.C2.secret!) });
    assert.equal(missing.json!.error, 'invalid_request');
    assert.equal((await fetch(h.introspectUrl)).status, 405);
  });
});
