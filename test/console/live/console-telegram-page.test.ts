import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TELEGRAM_PAGE_LIMIT } from '../../../src/console/live/routes.ts';
import { TEXT_PREVIEW_BYTES } from '../../../src/console/live/pages.ts';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { signedInBrowser, type Browser } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

// Attack (docs/security.md "Standing probes"): make the console render a large telegram again and
// again. A 2 MiB A/N telegram made of characters that escaping lengthens gives a page of a bounded
// size (its beginning, and a link to the body itself), and one account gets a bounded number of
// such pages a minute.
let server: TestServer;
let serial: number;
let body: Buffer;
before(async () => {
  server = await startTestServer();
  const header = 'SMJP01 RJTD 110000\r\r\nAAXX 11001\r\r\n';
  body = Buffer.from(header + '<&"'.repeat(Math.floor((2 * 1024 * 1024 - header.length) / 3)));
  const outcome = await ingestTelegram(server.ctx, body, { receivedTime: Date.now() });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  serial = outcome.stored.serial;
});
after(() => server.close());

async function observer(): Promise<Browser> {
  const { account, password } = await server.createAccount({ contracts: ['telegram.observation'] });
  return signedInBrowser(server.url, account.email, password);
}

test('a 2 MiB A/N telegram renders a page of at most a few hundred KiB, linking the whole body', async () => {
  const browser = await observer();
  const res = await browser.get(`${server.url}/console/telegrams/${serial}`);
  assert.equal(res.status, 200);
  const page = await res.text();
  // Each shown byte escapes to at most 6 characters (`&quot;`); the rest of the page is small.
  assert.ok(page.length < TEXT_PREVIEW_BYTES * 6 + 32 * 1024, `page of ${page.length} characters`);
  assert.ok(page.length < body.length / 4);
  const link = /<a href="(\/console\/telegrams\/\d+\/body)">/.exec(page)?.[1];
  assert.equal(link, `/console/telegrams/${serial}/body`);

  const whole = await browser.get(`${server.url}${link}`);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(
    whole.headers.get('content-security-policy'),
    "default-src 'none'; sandbox; frame-ancestors 'none'",
  );
  assert.equal(whole.headers.get('x-frame-options'), 'DENY');
  assert.equal(whole.headers.get('referrer-policy'), 'no-referrer');
  const got = Buffer.from(await whole.arrayBuffer());
  // The body as stored: what follows the JMA header line.
  assert.ok(got.equals(body.subarray(body.indexOf('\n') + 1)), 'the body as stored');
  // Not for someone else's contracts.
  const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const outsider = await signedInBrowser(server.url, other.account.email, other.password);
  assert.equal((await outsider.get(`${server.url}${link}`)).status, 404);
});

test('one account gets a bounded number of telegram pages a minute', async () => {
  const browser = await observer();
  const statuses: number[] = [];
  for (let i = 0; i <= TELEGRAM_PAGE_LIMIT.limit; i++) {
    const res = await browser.get(`${server.url}/console/telegrams/${serial}/body`);
    statuses.push(res.status);
    if (res.status === 429) {
      const retry = Number(res.headers.get('retry-after'));
      assert.ok(retry > 0 && retry <= TELEGRAM_PAGE_LIMIT.windowMs / 1000);
    }
    await res.arrayBuffer();
  }
  assert.deepEqual(statuses, [...Array(TELEGRAM_PAGE_LIMIT.limit).fill(200), 429]);
  // The page itself is counted under the same limit.
  assert.equal((await browser.get(`${server.url}/console/telegrams/${serial}`)).status, 429);
  // Another account is not held back.
  assert.equal((await (await observer()).get(`${server.url}/console/telegrams/${serial}`)).status, 200);
});
