import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../../src/http/app.ts';
import type { App } from '../../../src/http/surface.ts';
import { surfaces } from '../../../src/server.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { Browser } from '../../support/browser.ts';
import { serveByInjection } from '../../support/fetch.ts';

/**
 * The sign-in limit is shared by every server process: failures counted by one are seen by the
 * other. With PostgreSQL, two servers with their own connection pools on one database; with the
 * embedded database (one process only), a second app instance over the same database.
 */

let database: TestDatabase;
let first: TestServer;
let second: { url: string; close(): Promise<void> };

before(async () => {
  database = await createTestDatabase();
  first = await startTestServer({ database, listen: false });
  if (testDatabaseUrl) {
    const other = await startTestServer({ database, listen: false });
    second = other;
  } else {
    const app: App = await buildApp(first.ctx, surfaces);
    await app.ready();
    const { origin, forget } = serveByInjection(app);
    second = {
      url: origin,
      close: async () => {
        forget();
        await app.close();
      },
    };
  }
});
after(async () => {
  await second.close();
  await first.close();
  await database.drop();
});

async function attempt(origin: string, email: string, password: string): Promise<Response> {
  const browser = new Browser();
  const page = await (await browser.get(`${origin}/account/signin`)).text();
  return browser.submit(page, '/account/signin', [
    ['email', email],
    ['password', password],
  ]);
}

test('failures on one server count on the other', async () => {
  const { account, password } = await first.createAccount();
  for (let i = 0; i < 10; i++) {
    const res = await attempt(i % 2 === 0 ? first.url : second.url, account.email, `wrong ${i}`);
    assert.equal(res.status, 401);
  }
  for (const origin of [first.url, second.url]) {
    const blocked = await attempt(origin, account.email, password);
    assert.equal(blocked.status, 429, origin);
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  }
});
