import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Browser, parseForms, signInThroughForm, startHarness, type Harness } from '../support/browser.ts';

/** Generated form posts to every page that takes one: never a 5xx, never a change without a valid token. */

let h: Harness;
let browser: Browser;
let csrf: string;
before(async () => {
  h = await startHarness({ listen: false });
  browser = new Browser();
  await signInThroughForm(
    browser,
    `${h.origin}/account/signin?return_to=%2Faccount`,
    h.user.email,
    h.user.password,
  );
  const page = await (await browser.get(`${h.origin}/account`)).text();
  csrf = parseForms(page)[0]!.fields.find(([k]) => k === 'csrf')![1];
});
after(() => h.close());

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('\u0000', '%FF', 'approve', 'deny', '/account', '//evil.example'),
);

test('generated form posts: no 5xx; nothing is issued or revoked without the right token', async () => {
  const paths = [
    '/account/signin',
    '/account/signout',
    '/account/oauth2/v1/auth/consent',
    '/account/authorizations/1/revoke',
    '/account/authorizations/x/revoke',
  ];
  const names = fc.constantFrom('email', 'password', 'csrf', 'return_to', 'request', 'decision', 'other');
  const fields = fc.array(fc.tuple(names, text), { maxLength: 8 });
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), fields, async (path, pairs) => {
      const res = await browser.post(`${h.origin}${path}`, pairs);
      await res.arrayBuffer();
      assert.ok(res.status < 500, `${res.status} for ${path} ${JSON.stringify(pairs)}`);
      // Without the session's token nothing may change (sign-in has its own cookie-bound token).
      if (path !== '/account/signin' && !pairs.some(([k, v]) => k === 'csrf' && v === csrf)) {
        assert.ok([303, 400, 403, 404].includes(res.status), `${res.status} for ${path}`);
        if (res.status === 303) assert.match(res.headers.get('location')!, /\/account\/signin\?/);
      }
    }),
    { numRuns: 300 },
  );
  // The session survived: no forged sign-out got through.
  assert.equal((await browser.get(`${h.origin}/account`)).status, 200);
  assert.equal((await h.server.ctx.db.query('SELECT 1 FROM oauth_codes')).length, 0);
});
