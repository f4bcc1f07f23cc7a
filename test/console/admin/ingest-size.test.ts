/**
 * The console's ingest form under NAMAZU_MAX_TELEGRAM_BYTES (docs/telegrams.md "Size"): a file one
 * byte over is refused with its page (413), logged and counted, and stores nothing; one at the limit
 * is stored.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Browser, signInThroughForm } from '../../support/browser.ts';
import { testFetch } from '../../support/fetch.ts';
import { fixture } from '../../support/fixtures.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const LIMIT = 64 * 1024;
let server: TestServer;
let admin: Browser;

before(async () => {
  server = await startTestServer({ config: { maxTelegramBytes: LIMIT } });
  const { account, password } = await server.createAccount({ admin: true });
  admin = new Browser();
  const page = await admin.get(`${server.url}/console/admin`);
  assert.equal(
    (await signInThroughForm(admin, page.headers.get('location')!, account.email, password)).status,
    303,
  );
});
after(() => server.close());

/** A real XML telegram padded to exactly `size` bytes with a comment inside its root. */
function sized(size: number): Buffer {
  const xml = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml')).toString('utf8');
  const at = xml.lastIndexOf('</Report>');
  const pad = size - Buffer.byteLength(xml) - '<!---->'.length;
  return Buffer.from(`${xml.slice(0, at)}<!--${'y'.repeat(pad)}-->${xml.slice(at)}`);
}

/** Posts the ingest form with this file to the action the page gave it (which carries its CSRF token). */
async function upload(bytes: Buffer): Promise<Response> {
  const page = await (await admin.get(`${server.url}/console/admin/ingest`)).text();
  const action = /<form method="post" action="([^"]+)" enctype="multipart\/form-data">/.exec(page)![1]!;
  const form = new FormData();
  form.set('telegram', new Blob([bytes]), 'telegram.xml');
  return testFetch(`${server.url}${action.replaceAll('&amp;', '&')}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: form,
  });
}

const xmlCount = async () =>
  (
    await server.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM telegrams WHERE format = 'xml'`)
  )[0]!.n;
const refused = async () =>
  (await server.ctx.metrics.telegramsTooLarge.get()).values.find((v) => v.labels.path === 'console')?.value ??
  0;

test('a file one byte over the limit is refused with its page and counted; one at the limit is stored', async () => {
  const [n, counted] = [await xmlCount(), await refused()];
  const over = await upload(sized(LIMIT + 1));
  assert.equal(over.status, 413);
  assert.match(await over.text(), /The file is larger than the ingest limit\./);
  assert.equal(await refused(), counted + 1);
  assert.equal(await xmlCount(), n);

  const at = await upload(sized(LIMIT));
  assert.equal(at.status, 200);
  assert.match(await at.text(), /id="ingest-result"/);
  assert.equal(await xmlCount(), n + 1);
});
