// Case DP22 (docs/oauth.md "DPoP"): a DPoP proof replayed at another server process sharing the
// database is refused. With PostgreSQL (NAMAZU_TEST_DATABASE_URL, as CI sets it): two real `namazu
// serve` processes. Without: two app instances in this process over one embedded database (no
// shared memory between them but the database).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { buildApp } from '../../src/http/app.ts';
import { surfaces } from '../../src/server.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeProof, proofKey } from '../support/dpop.ts';
import { basic, postForm } from '../support/oauth.ts';
import { serve } from '../support/processes.ts';

const AUTH_URL = 'http://auth.namazu.test';
const TOKEN_PATH = '/account/oauth2/v1/token';
const SECRET = 'dp22-shared-secret';
describe('DP22 replay across two server processes', () => {
  let urls: [string, string];
  let credentials: { id: string; secret: string };
  const cleanups: Array<() => Promise<unknown>> = [];

  before(async () => {
    if (testDatabaseUrl) {
      const database: TestDatabase = await createTestDatabase();
      cleanups.push(() => database.drop());
      const env = {
        NAMAZU_DATABASE_URL: database.databaseUrl!,
        NAMAZU_AUTH_URL: AUTH_URL,
        NAMAZU_SECRET: SECRET,
        NAMAZU_DPOP_NONCE: 'false',
      };
      const a = await serve(env);
      cleanups.push(a.stop);
      const b = await serve(env);
      cleanups.push(b.stop);
      urls = [a.url, b.url];
      const db = await openPostgres(database.databaseUrl!, 1);
      cleanups.push(() => db.close());
      const pepper = await loadPepper(db, SECRET);
      const account = await createAccount(db, {
        email: `dp22-${Date.now()}@example.test`,
        password: 'password-dp22',
      });
      const { client, clientSecret } = await createClient(db, pepper, {
        accountId: account.id,
        name: 'dp22',
        type: 'confidential',
        redirectUris: [],
        grants: ['client_credentials'],
        scopes: ['telegram.list'],
      });
      credentials = { id: client.clientId, secret: clientSecret! };
    } else {
      const server: TestServer = await startTestServer({ config: { authUrl: AUTH_URL, dpopNonce: false } });
      cleanups.push(() => server.close());
      // A second, independent app (own caches, limiters and nonce state) over the same database.
      const second = await buildApp(server.ctx, surfaces);
      await second.listen({ port: 0, host: '127.0.0.1' });
      cleanups.push(() => second.close());
      const port = (second.server.address() as { port: number }).port;
      urls = [server.url, `http://127.0.0.1:${port}`];
      const { account } = await server.createAccount();
      const { client, clientSecret } = await createClient(server.ctx.db, server.ctx.pepper, {
        accountId: account.id,
        name: 'dp22',
        type: 'confidential',
        redirectUris: [],
        grants: ['client_credentials'],
        scopes: ['telegram.list'],
      });
      credentials = { id: client.clientId, secret: clientSecret! };
    }
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  const send = (url: string, dpop: string) =>
    postForm(
      url + TOKEN_PATH,
      { grant_type: 'client_credentials', scope: 'telegram.list' },
      {
        authorization: basic(credentials.id, credentials.secret),
        dpop,
      },
    );

  test('DP22 a proof accepted by one process is refused by the other', async () => {
    const key = await proofKey('ES256');
    const proof = await makeProof(key, { htu: AUTH_URL + TOKEN_PATH });
    const first = await send(urls[0], proof);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json!.token_type, 'DPoP');
    const replay = await send(urls[1], proof);
    assert.equal(replay.status, 400);
    assert.equal(replay.json!.error, 'invalid_dpop_proof');
  });

  test('DP22 the same proof sent to both processes at once: exactly one succeeds', async () => {
    const key = await proofKey('ES256');
    for (let i = 0; i < 10; i++) {
      const proof = await makeProof(key, { htu: AUTH_URL + TOKEN_PATH });
      const results = await Promise.all(urls.map((u) => send(u, proof)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
    }
  });
});
