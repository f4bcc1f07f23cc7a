// A token revoked at one server process stops at once at another that has it cached: the
// revocation is announced on the shared bus (PostgreSQL LISTEN/NOTIFY here) and drops the entry.
// With PostgreSQL (NAMAZU_TEST_DATABASE_URL): two real `namazu serve` processes. Without: two app
// instances in this process sharing the database and the in-process bus.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount } from '../../src/accounts/accounts.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { createClient } from '../../src/issuer/clients.ts';
import type { Db } from '../../src/db/types.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { buildApp } from '../../src/http/app.ts';
import { surfaces } from '../../src/server.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { startTestServer } from '../support/server.ts';
import { basic, postForm } from '../support/oauth.ts';
import { serve } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

const SECRET = 'resource-revoke-secret';

async function makeClient(db: Db, pepper: Buffer) {
  const account = await createAccount(db, {
    email: `rr-${Date.now()}@example.test`,
    password: 'password-rr',
  });
  await addContract(db, account.id, 'telegram.earthquake');
  const { client, clientSecret } = await createClient(db, pepper, {
    accountId: account.id,
    name: 'rr',
    type: 'confidential',
    redirectUris: [],
    grants: ['client_credentials'],
    scopes: ['telegram.list'],
  });
  return { id: client.clientId, secret: clientSecret! };
}

describe('revocation reaches every process', () => {
  let urls: [string, string];
  let credentials: { id: string; secret: string };
  const cleanups: Array<() => Promise<unknown>> = [];

  before(async () => {
    if (testDatabaseUrl) {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const env = {
        NAMAZU_DATABASE_URL: database.databaseUrl!,
        NAMAZU_SECRET: SECRET,
        NAMAZU_BUS: 'postgres',
      };
      const a = await serve(env);
      cleanups.push(a.stop);
      const b = await serve(env);
      cleanups.push(b.stop);
      urls = [a.url, b.url];
      const db = await openPostgres(database.databaseUrl!, 1);
      cleanups.push(() => db.close());
      credentials = await makeClient(db, await loadPepper(db, SECRET));
    } else {
      const server = await startTestServer();
      cleanups.push(() => server.close());
      const second = await buildApp(server.ctx, surfaces);
      await second.listen({ port: 0, host: '127.0.0.1' });
      cleanups.push(() => second.close());
      urls = [server.url, `http://127.0.0.1:${(second.server.address() as { port: number }).port}`];
      credentials = await makeClient(server.ctx.db, server.ctx.pepper);
    }
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  test('revoked at A, refused by B well before its cache would expire', async () => {
    const auth = { authorization: basic(credentials.id, credentials.secret) };
    const issued = await postForm(
      `${urls[0]}/account/oauth2/v1/token`,
      { grant_type: 'client_credentials', scope: 'telegram.list' },
      auth,
    );
    assert.equal(issued.status, 200, issued.text);
    const token = issued.json!.access_token as string;
    const list = () => fetch(`${urls[1]}/v2/telegram`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await list()).status, 200); // B has checked and cached it now

    const revoked = await postForm(`${urls[0]}/account/oauth2/v1/revoke`, { token }, auth);
    assert.equal(revoked.status, 200);
    // The announcement crosses processes asynchronously; B's cache would otherwise answer for 30 s.
    const status = await waitFor(
      async () => {
        const answered = (await list()).status;
        return answered === 200 ? null : answered;
      },
      { message: 'the revocation to reach process B' },
    );
    assert.equal(status, 401);
  });
});
