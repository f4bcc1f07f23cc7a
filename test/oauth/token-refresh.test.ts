// Refresh token grant (docs/oauth.md "Refresh token grant"), cases R1–R10: sliding expiry and the
// absolute cap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import {
  basic,
  postAsClient,
  postForm,
  tokensFor as tokensForClient,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
  type TestClient,
} from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const DAY = 86_400_000;

describe('refresh token grant', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(async () => h.close());

  const tokensFor = (client: TestClient) => tokensForClient(h, client);
  const refresh = (client: TestClient, form: Record<string, string>) =>
    postAsClient(client, h.tokenUrl, { grant_type: 'refresh_token', ...form });

  test('R1 happy path: a new access token and no refresh token (oauth4webapi)', async () => {
    const { access, refresh: rt } = await tokensFor(h.C1);
    const as = serverMeta(h);
    const client = { client_id: h.C1.id };
    const res = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(h.C1.secret!),
      rt,
      insecure,
    );
    const tokens = await oauth.processRefreshTokenResponse(as, client, res);
    assert.match(tokens.access_token, /^ATn\./);
    assert.notEqual(tokens.access_token, access);
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.expires_in, 21600);
    assert.equal(tokens.scope, 'telegram.list telegram.data');
    // The public client refreshes with client_id only.
    const pub = await tokensFor(h.P1);
    const r = await refresh(h.P1, { refresh_token: pub.refresh });
    assert.equal(r.status, 200);
    assert.equal('refresh_token' in r.json!, false);
  });

  test('R2 missing refresh_token → invalid_request', async () => {
    const r = await refresh(h.C1, {});
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_request');
  });

  test('R3 unknown refresh token → invalid_grant', async () => {
    const r = await refresh(h.C1, { refresh_token: 'ARh.unknown' });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_grant');
  });

  test("R4 P1's refresh token used by C1 → invalid_grant", async () => {
    const { refresh: rt } = await tokensFor(h.P1);
    const r = await refresh(h.C1, { refresh_token: rt });
    assert.equal(r.json!.error, 'invalid_grant');
    assert.equal((await refresh(h.P1, { refresh_token: rt })).status, 200);
  });

  test('R5 scope escalation → invalid_scope', async () => {
    const { refresh: rt } = await tokensFor(h.C1);
    for (const scope of ['telegram.list contract.list', 'contract.list', 'unknown.scope']) {
      const r = await refresh(h.C1, { refresh_token: rt, scope });
      assert.equal(r.status, 400, scope);
      assert.equal(r.json!.error, 'invalid_scope');
    }
  });

  test('R6 narrower scope → 200 with the narrower scope; the next refresh may widen back', async () => {
    const { refresh: rt } = await tokensFor(h.C1);
    const narrow = await refresh(h.C1, { refresh_token: rt, scope: 'telegram.list' });
    assert.equal(narrow.status, 200);
    assert.equal(narrow.json!.scope, 'telegram.list');
    const intro = await postForm(
      h.introspectUrl,
      { token: narrow.json!.access_token as string },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(intro.json!.scope, 'telegram.list');
    const full = await refresh(h.C1, { refresh_token: rt });
    assert.equal(full.json!.scope, 'telegram.list telegram.data');
  });

  test('R7 sliding expiry: +182 d → 200 and reset; +184 d since last use → invalid_grant', async () => {
    const { refresh: rt } = await tokensFor(h.C1);
    h.clock.advance(182 * DAY);
    assert.equal((await refresh(h.C1, { refresh_token: rt })).status, 200);
    // 182 days after the reset: still valid, which proves the window restarted.
    h.clock.advance(182 * DAY);
    assert.equal((await refresh(h.C1, { refresh_token: rt })).status, 200);
    h.clock.advance(184 * DAY);
    const r = await refresh(h.C1, { refresh_token: rt });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'invalid_grant');
  });

  test('R7b absolute cap: used every 182 days, an authorization still ends after three years', async () => {
    const { refresh: rt } = await tokensFor(h.C1);
    for (let i = 0; i < 6; i++) {
      h.clock.advance(182 * DAY);
      assert.equal((await refresh(h.C1, { refresh_token: rt })).status, 200, `use ${i + 1}`);
    }
    h.clock.advance(182 * DAY);
    assert.equal((await refresh(h.C1, { refresh_token: rt })).json!.error, 'invalid_grant');
  });

  test('R8 revoked refresh token → invalid_grant', async () => {
    const { refresh: rt } = await tokensFor(h.C1);
    const rev = await postForm(h.revokeUrl, { token: rt }, { authorization: basic(h.C1.id, h.C1.secret!) });
    assert.equal(rev.status, 200);
    assert.equal((await refresh(h.C1, { refresh_token: rt })).json!.error, 'invalid_grant');
  });

  test('R9 an access token sent as refresh token → invalid_grant', async () => {
    const { access } = await tokensFor(h.C1);
    const r = await refresh(h.C1, { refresh_token: access });
    assert.equal(r.json!.error, 'invalid_grant');
  });

  test('R10 client lost the refresh grant → unauthorized_client', async () => {
    const client = await h.addClient({
      type: 'confidential',
      grants: ['authorization_code', 'refresh_token'],
    });
    const { refresh: rt } = await tokensFor(client);
    await h.server.ctx.db.query(
      `UPDATE oauth_clients SET grants = '{authorization_code}' WHERE client_id = $1`,
      [client.id],
    );
    // Client records are reused for up to five seconds at the token endpoint.
    h.clock.advance(5_001);
    const r = await refresh(client, { refresh_token: rt });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'unauthorized_client');
  });
});
