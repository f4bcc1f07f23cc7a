// Client credentials grant (docs/oauth.md "Client credentials grant"), cases CC1–CC5.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { basic, postForm, serverMeta, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('client credentials grant', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness();
  });
  after(async () => h.close());

  test("CC1 200, no refresh token, acting for the client's owner", async () => {
    const as = serverMeta(h);
    const client = { client_id: h.CC.id };
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(h.CC.secret!),
      { scope: 'telegram.list contract.list' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, res);
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.expires_in, 21600);
    assert.equal(tokens.scope, 'telegram.list contract.list');
    const intro = await postForm(
      h.introspectUrl,
      { token: tokens.access_token },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(intro.json!.active, true);
    assert.equal(intro.json!.sub, String(h.account.id));
    assert.equal(intro.json!.client_id, h.CC.id);
  });

  test('CC2 public client → unauthorized_client', async () => {
    const r = await postForm(h.tokenUrl, {
      grant_type: 'client_credentials',
      scope: 'telegram.list',
      client_id: h.P1.id,
    });
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'unauthorized_client');
  });

  test('CC3 scope not allowed → invalid_scope; scope missing → invalid_request', async () => {
    const limited = await h.addClient({
      type: 'confidential',
      grants: ['client_credentials'],
      scopes: ['telegram.list'],
    });
    for (const scope of ['contract.list', 'telegram.list contract.list', 'no.such.scope', ' ']) {
      const r = await postForm(
        h.tokenUrl,
        { grant_type: 'client_credentials', scope },
        {
          authorization: basic(limited.id, limited.secret!),
        },
      );
      assert.equal(r.status, 400, scope);
      assert.equal(r.json!.error, 'invalid_scope');
    }
    const missing = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials' },
      {
        authorization: basic(limited.id, limited.secret!),
      },
    );
    assert.equal(missing.json!.error, 'invalid_request');
  });

  test('CC4 client without the grant → unauthorized_client', async () => {
    const codeOnly = await h.addClient({ type: 'confidential', grants: ['authorization_code'] });
    const r = await postForm(
      h.tokenUrl,
      { grant_type: 'client_credentials', scope: 'telegram.list' },
      {
        authorization: basic(codeOnly.id, codeOnly.secret!),
      },
    );
    assert.equal(r.status, 400);
    assert.equal(r.json!.error, 'unauthorized_client');
  });

  test('CC5 with a DPoP proof → token_type DPoP, bound to the key (oauth4webapi)', async () => {
    const as = serverMeta(h);
    const client = { client_id: h.CC.id };
    const keyPair = await oauth.generateKeyPair('ES256');
    const DPoP = oauth.DPoP({}, keyPair);
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(h.CC.secret!),
      { scope: 'telegram.list' },
      { ...insecure, DPoP },
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, res);
    assert.equal(tokens.token_type, 'dpop');
    const intro = await postForm(
      h.introspectUrl,
      { token: tokens.access_token },
      {
        authorization: basic(h.C1.id, h.C1.secret!),
      },
    );
    assert.equal(intro.json!.token_type, 'DPoP');
    assert.equal(typeof (intro.json!.cnf as { jkt: string }).jkt, 'string');
  });
});
