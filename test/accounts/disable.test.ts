import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkPassword, disableAccount, listAccounts } from '../../src/accounts/accounts.ts';
import { createSession, findSession } from '../../src/console/signin/signin-sessions.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { announceRevoked } from '../../src/issuer/tokens.ts';
import { oauthPaths } from '../../src/oauth/metadata.ts';
import { testFetch } from '../support/fetch.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

test('a disabled account cannot sign in, and its sessions, tokens and API keys stop at once', async () => {
  const { db, pepper, clock, bus } = server.ctx;
  const { account, password } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const { account: bystander, password: bystanderPassword } = await server.createAccount();
  const key = await server.createApiKey(account.id, ['telegram.list']);
  const { token: sessionToken } = await createSession(db, pepper, clock, account.id);
  const { client, clientSecret } = await createClient(db, pepper, {
    accountId: account.id,
    name: 'Machine',
    type: 'confidential',
    redirectUris: ['https://app.example/cb'],
    grants: ['client_credentials'],
    scopes: ['telegram.list'],
  });
  const requestToken = () =>
    testFetch(`${server.url}${oauthPaths.token}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=telegram.list',
    });
  const issued = await requestToken();
  assert.equal(issued.status, 200);
  const { access_token: accessToken } = (await issued.json()) as { access_token: string };
  // A list endpoint: its credentials are cached (docs/security.md), so this also shows the caches forget them.
  const list = (authorization: string) =>
    testFetch(`${server.url}/v2/telegram`, { headers: { authorization } });
  const byKey = () => list(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
  const byToken = () => list(`Bearer ${accessToken}`);
  // Both work, and are now held in the credential caches.
  assert.equal((await byKey()).status, 200);
  assert.equal((await byToken()).status, 200);

  const disabled = await disableAccount(db, account.id);
  assert.ok(disabled);
  assert.equal(disabled.revokedDigests.length, 2);
  await announceRevoked(bus, disabled.revokedDigests);

  assert.equal(await checkPassword(db, account.email, password), null);
  assert.equal(await findSession(db, pepper, clock, sessionToken), null);
  assert.equal((await byKey()).status, 401);
  assert.equal((await byToken()).status, 401);
  // Its client cannot obtain new tokens for it either.
  const refused = await requestToken();
  assert.equal(refused.status, 400);
  assert.equal(((await refused.json()) as { error: string }).error, 'unauthorized_client');
  const listed = (await listAccounts(db, 0, 1000)).find((a) => a.id === account.id);
  assert.ok(listed?.disabledAt instanceof Date);

  // A second disable is refused; other accounts are untouched.
  assert.equal(await disableAccount(db, account.id), null);
  assert.equal(await disableAccount(db, 999_999_999), null);
  assert.equal((await checkPassword(db, bystander.email, bystanderPassword))?.id, bystander.id);
});
