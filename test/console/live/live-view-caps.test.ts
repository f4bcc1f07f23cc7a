import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultFeedLimits } from '../../../src/console/live/feed.ts';
import { signupLimits } from '../../../src/console/signin/signup-limits.ts';
import { Browser, signedInBrowser } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { waitFor } from '../../support/wait.ts';

// Attacks on the live view's stream caps and on open sign-up (docs/security.md "Standing probes"):
// one account asking for 40 streams at once; accounts of one address together; sign-ups from one
// address in a row and at once. Every cap holds exactly, on PGlite and on PostgreSQL.
let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { signup: 'open' } });
});
after(() => server.close());

const cookieOf = (browser: Browser) => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

/** Opens live-view streams at once; resolves with their statuses and a function that ends them all. */
async function openStreams(cookies: string[]) {
  const controller = new AbortController();
  const responses = await Promise.all(
    cookies.map((cookie) =>
      fetch(`${server.url}/console/live/events`, { headers: { cookie }, signal: controller.signal }),
    ),
  );
  return {
    statuses: responses.map((r) => r.status),
    close: async () => {
      controller.abort();
      await Promise.all(responses.map((r) => r.body?.cancel().catch(() => {})));
    },
  };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

async function signedInAccount(admin = false): Promise<string> {
  const { account, password } = await server.createAccount({ admin });
  return cookieOf(await signedInBrowser(server.url, account.email, password));
}

test('40 simultaneous live-view requests of one account open exactly its 4 streams', async () => {
  const cookie = await signedInAccount();
  const { statuses, close } = await openStreams(Array.from({ length: 40 }, () => cookie));
  assert.equal(count(statuses, 200), defaultFeedLimits.perAccount, statuses.join(' '));
  assert.equal(count(statuses, 429), 40 - defaultFeedLimits.perAccount);
  await close();
  // The slots come back with the streams' end.
  await waitFor(async () => {
    const again = await openStreams([cookie]);
    await again.close();
    return again.statuses[0] === 200;
  });
});

test('accounts of one address share its cap; an administrator from there still gets a live view', async () => {
  const { perAccount, perAddress } = defaultFeedLimits;
  const accounts = Math.ceil(perAddress / perAccount) + 1;
  const cookies: string[] = [];
  for (let i = 0; i < accounts; i++) cookies.push(await signedInAccount());
  const { statuses, close } = await openStreams(
    cookies.flatMap((c) => Array.from({ length: perAccount }, () => c)),
  );
  assert.equal(count(statuses, 200), perAddress, statuses.join(' '));
  assert.equal(count(statuses, 429), accounts * perAccount - perAddress);
  const admin = await openStreams([await signedInAccount(true)]);
  assert.deepEqual(admin.statuses, [200]);
  await admin.close();
  await close();
});

/** Signs up through the form from a fresh browser; resolves with the answer's status and Retry-After. */
async function signUp(n: number) {
  const browser = new Browser();
  const page = await browser.get(`${server.url}/account/signup`);
  const res = await browser.submit(await page.text(), '/account/signup', [
    ['email', `signup-${n}-${Date.now()}@example.test`],
    ['password', 'a long enough password'],
  ]);
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
}

test('open sign-up is limited per address, also when the sign-ups come at once', async () => {
  const { limit, windowMs } = signupLimits.perAddress;
  const accountsBefore = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  const outcomes = await Promise.all(Array.from({ length: limit + 10 }, (_, i) => signUp(i)));
  const statuses = outcomes.map((o) => o.status);
  assert.equal(count(statuses, 303), limit, statuses.join(' '));
  assert.equal(count(statuses, 429), 10);
  for (const o of outcomes.filter((x) => x.status === 429)) {
    const retry = Number(o.retryAfter);
    assert.ok(retry > 0 && retry <= windowMs / 1000, `Retry-After ${o.retryAfter}`);
  }
  const accountsAfter = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  assert.equal(accountsAfter[0]!.n - accountsBefore[0]!.n, limit);
});
