// A malicious account holder against another account (docs/security.md "Standing probes"): its
// contracts and credentials. Socket sessions and authorizations are probed in
// test/realtime/socket-api.test.ts and test/console/account/account.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '../../src/issuer/clients.ts';
import { getJson } from '../support/data-api.ts';
import { basic, postForm } from '../support/oauth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

const keyAuth = (key: string) => ({ authorization: basic(key, '') });

async function accountWith(contracts: string[]) {
  const { account } = await server.createAccount({ contracts });
  const key = await server.createApiKey(account.id, ['contract.list', 'telegram.list', 'socket.list']);
  const { client, clientSecret } = await createClient(server.ctx.db, server.ctx.pepper, {
    accountId: account.id,
    name: 'probe',
    type: 'confidential',
    redirectUris: [],
    grants: ['client_credentials'],
    scopes: ['contract.list', 'telegram.list'],
  });
  return { account, key, client: { id: client.clientId, secret: clientSecret! } };
}

test("an account's contracts are its own: another sees none of them", async () => {
  const a = await accountWith(['telegram.earthquake', 'eew.forecast']);
  const b = await accountWith([]);
  const contracted = async (key: string) =>
    (await getJson(server, '/v2/contract', { headers: keyAuth(key) })).body.items
      .filter((c: { isValid: boolean }) => c.isValid)
      .map((c: { classification: string }) => c.classification)
      .sort();
  assert.deepEqual(await contracted(a.key), ['eew.forecast', 'telegram.earthquake']);
  assert.deepEqual(await contracted(b.key), []);
});

test("another account's client cannot revoke an account's API key or access token", async () => {
  const a = await accountWith(['telegram.earthquake']);
  const b = await accountWith(['telegram.earthquake']);
  const issued = await postForm(
    `${server.url}/account/oauth2/v1/token`,
    { grant_type: 'client_credentials', scope: 'contract.list' },
    { authorization: basic(a.client.id, a.client.secret) },
  );
  assert.equal(issued.status, 200, issued.text);
  const token = issued.json!.access_token as string;
  // RFC 7009: 200 whatever the token, so the answer tells the attacker nothing.
  for (const victim of [a.key, token]) {
    const r = await postForm(
      `${server.url}/account/oauth2/v1/revoke`,
      { token: victim },
      { authorization: basic(b.client.id, b.client.secret) },
    );
    assert.equal(r.status, 200);
  }
  // /v2/contract checks credentials at once (no cache): both still work.
  assert.equal((await getJson(server, '/v2/contract', { headers: keyAuth(a.key) })).status, 200);
  const withToken = await getJson(server, '/v2/contract', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(withToken.status, 200);
  // A's own client can revoke its token: the probe above would have seen a revocation.
  await postForm(
    `${server.url}/account/oauth2/v1/revoke`,
    { token },
    { authorization: basic(a.client.id, a.client.secret) },
  );
  const revoked = await getJson(server, '/v2/contract', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(revoked.status, 401);
});
