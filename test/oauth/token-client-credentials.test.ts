// Client credentials grant (docs/oauth.md "Client credentials grant"), cases CC1–CC5.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { createAccount, disableAccount } from '../../src/accounts/accounts.ts';
import { createClient } from '../../src/issuer/clients.ts';
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

  test('CC6 concurrent requests each get their own working token', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () =>
        postForm(
          h.tokenUrl,
          { grant_type: 'client_credentials', scope: 'telegram.list' },
          { authorization: basic(h.CC.id, h.CC.secret!) },
        ),
      ),
    );
    const tokens = responses.map((r) => {
      assert.equal(r.status, 200);
      return r.json!.access_token as string;
    });
    assert.equal(new Set(tokens).size, tokens.length);
    for (const token of [tokens[0]!, tokens.at(-1)!]) {
      const intro = await postForm(
        h.introspectUrl,
        { token },
        { authorization: basic(h.C1.id, h.C1.secret!) },
      );
      assert.equal(intro.json!.active, true);
      assert.equal(intro.json!.sub, String(h.account.id));
    }
  });

  test("CC7 a disabled account's client → unauthorized_client, whatever the scope, and no token is stored", async () => {
    const { db, pepper } = h.server.ctx;
    const owner = await createAccount(db, {
      email: `cc7-${Date.now()}@example.test`,
      password: 'cc7-password',
    });
    const { client, clientSecret } = await createClient(db, pepper, {
      accountId: owner.id,
      name: 'cc7',
      type: 'confidential',
      grants: ['client_credentials'],
      redirectUris: [],
      scopes: ['telegram.list'],
    });
    const ask = (scope: string) =>
      postForm(
        h.tokenUrl,
        { grant_type: 'client_credentials', scope },
        { authorization: basic(client.clientId, clientSecret!) },
      );
    assert.equal((await ask('telegram.list')).status, 200);
    await disableAccount(db, owner.id);
    for (const scope of ['telegram.list', 'contract.list']) {
      const r = await ask(scope);
      assert.equal(r.status, 400, scope);
      assert.equal(r.json!.error, 'unauthorized_client', scope);
    }
    const stored = await db.query('SELECT 1 FROM oauth_tokens WHERE account_id = $1', [owner.id]);
    assert.equal(stored.length, 0);
  });
});
