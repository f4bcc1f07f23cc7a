// Revocation (docs/oauth.md "Revocation", RFC 7009), cases V1–V11.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import {
  basic,
  isActive,
  postAsClient,
  postForm,
  tokensFor as tokensForClient,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
  type TestClient,
} from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('revocation endpoint', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(async () => h.close());

  const tokensFor = (client: TestClient) => tokensForClient(h, client);
  const revoke = (client: TestClient, form: Record<string, string>) =>
    postAsClient(client, h.revokeUrl, form);
  const refresh = (client: TestClient, refresh_token: string) =>
    postForm(
      h.tokenUrl,
      { grant_type: 'refresh_token', refresh_token },
      { authorization: basic(client.id, client.secret!) },
    );

  test('V1 refresh token revoked → refresh fails and its access tokens stop', async () => {
    const { access, refresh: rt } = await tokensFor(h.C1);
    const second = (await refresh(h.C1, rt)).json!.access_token as string;
    assert.equal(await isActive(h, second), true);
    const r = await revoke(h.C1, { token: rt, token_type_hint: 'refresh_token' });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.equal((await refresh(h.C1, rt)).json!.error, 'invalid_grant');
    assert.equal(await isActive(h, access), false);
    assert.equal(await isActive(h, second), false);
  });

  test('V2 access token revoked; the refresh token goes on working', async () => {
    const { access, refresh: rt } = await tokensFor(h.C1);
    assert.equal((await revoke(h.C1, { token: access, token_type_hint: 'access_token' })).status, 200);
    assert.equal(await isActive(h, access), false);
    assert.equal((await refresh(h.C1, rt)).status, 200);
  });

  test('V3 wrong token_type_hint still revokes', async () => {
    const { access, refresh: rt } = await tokensFor(h.C1);
    assert.equal((await revoke(h.C1, { token: access, token_type_hint: 'refresh_token' })).status, 200);
    assert.equal(await isActive(h, access), false);
    assert.equal((await revoke(h.C1, { token: rt, token_type_hint: 'access_token' })).status, 200);
    assert.equal((await refresh(h.C1, rt)).json!.error, 'invalid_grant');
    assert.equal((await revoke(h.C1, { token: rt, token_type_hint: 'something_else' })).status, 200);
  });

  test('V4 unknown token → 200', async () => {
    for (const token of ['ATn.unknown', 'ARh.unknown', 'whatever', 'x'.repeat(1000)]) {
      const r = await revoke(h.C1, { token });
      assert.equal(r.status, 200, token);
    }
  });

  test('V5 already revoked → 200', async () => {
    const { access } = await tokensFor(h.C1);
    assert.equal((await revoke(h.C1, { token: access })).status, 200);
    assert.equal((await revoke(h.C1, { token: access })).status, 200);
  });

  test('V6 missing token → invalid_request', async () => {
    const r = await revoke(h.C1, {});
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_request');
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  test('V7 wrong secret → 401 invalid_client', async () => {
    const { access } = await tokensFor(h.C1);
    const r = await postForm(h.revokeUrl, { token: access }, { authorization: basic(h.C1.id, h.C2.secret!) });
    assert.equal(r.status, 401);
    assert.equal(r.json!.error, 'invalid_client');
    assert.match(r.headers.get('www-authenticate')!, /^Basic /);
    const post = await postForm(h.revokeUrl, {
      token: access,
      client_id: h.C1.id,
      client_secret: 'CSt.wrong',
    });
    assert.equal(post.status, 401);
    assert.equal(await isActive(h, access), true);
  });

  test("V8 C1 revokes C2's token → 200 and the token is NOT revoked", async () => {
    const { access, refresh: rt } = await tokensFor(h.C2);
    assert.equal((await revoke(h.C1, { token: access })).status, 200);
    assert.equal((await revoke(h.C1, { token: rt })).status, 200);
    assert.equal(await isActive(h, access), true);
    assert.equal((await refresh(h.C2, rt)).status, 200);
  });

  test('V9 public client revokes its own token with client_id only', async () => {
    const { access, refresh: rt } = await tokensFor(h.P1);
    assert.equal((await revoke(h.P1, { token: rt })).status, 200);
    assert.equal(await isActive(h, access), false);
    const again = await postForm(h.tokenUrl, {
      grant_type: 'refresh_token',
      client_id: h.P1.id,
      refresh_token: rt,
    });
    assert.equal(again.json!.error, 'invalid_grant');
  });

  test('repeated failed revocations → 429 with Retry-After', async () => {
    const client = await h.addClient({ type: 'confidential', grants: ['client_credentials'] });
    let last;
    for (let i = 0; i < 40; i++) {
      last = await postForm(h.revokeUrl, {
        token: 'ATn.x',
        client_id: client.id,
        client_secret: 'CSt.wrong',
      });
      if (last.status === 429) break;
      assert.equal(last.status, 401);
    }
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    h.clock.advance(61_000);
    const ok = await postForm(h.revokeUrl, {
      token: 'ATn.x',
      client_id: client.id,
      client_secret: client.secret!,
    });
    assert.equal(ok.status, 200);
  });

  test('V10 GET → 405', async () => {
    const res = await fetch(h.revokeUrl);
    assert.equal(res.status, 405);
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
  });

  test('V11 oauth4webapi processRevocationResponse accepts the response', async () => {
    const { access } = await tokensFor(h.C1);
    const as = serverMeta(h);
    const res = await oauth.revocationRequest(
      as,
      { client_id: h.C1.id },
      oauth.ClientSecretBasic(h.C1.secret!),
      access,
      insecure,
    );
    assert.equal(await oauth.processRevocationResponse(res), undefined);
    assert.equal(await isActive(h, access), false);
  });
});
