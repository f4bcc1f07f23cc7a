import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Browser, parseForms, signInThroughForm } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Generated posts to every console form, with the session's valid CSRF token so the values reach
 * the handlers: never a 5xx, and a post without the token never changes anything.
 */

let server: TestServer;
let browser: Browser;
let csrf: string;
before(async () => {
  server = await startTestServer({ listen: false, config: { signup: 'open' } });
  const { account, password } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  browser = new Browser();
  await signInThroughForm(
    browser,
    `${server.url}/account/signin?return_to=%2Faccount`,
    account.email,
    password,
  );
  const page = await (await browser.get(`${server.url}/account/keys`)).text();
  csrf = parseForms(page)[0]!.fields.find(([k]) => k === 'csrf')![1];
});
after(() => server.close());

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '\u0000',
    'x'.repeat(3000),
    'https://a.example/cb',
    'http://127.0.0.1/cb#x',
    'public',
    'confidential',
    'authorization_code',
    'client_credentials',
    'contract.list',
    'admin.telegram.ingest',
    'telegram.earthquake',
    'apply',
    'cancel',
    'INv.' + 'a'.repeat(43),
  ),
);

const tables = ['api_keys', 'oauth_clients', 'contracts', 'accounts', 'invitations'];
const snapshot = async () =>
  Promise.all(
    tables.map(async (t) => JSON.stringify(await server.ctx.db.query(`SELECT * FROM ${t} ORDER BY id`))),
  );

test('generated console form posts: no 5xx; without the token nothing changes', async () => {
  const paths = [
    '/account/keys',
    '/account/keys/1/revoke',
    '/account/clients',
    '/account/clients/1',
    '/account/clients/1/secret',
    '/account/clients/1/delete',
    '/account/contracts',
    '/account/sessions/1/close',
    '/account/sessions/99999999999999999/close',
    '/account/password',
    '/account/signup',
  ];
  const names = fc.constantFrom(
    'scope',
    'grant',
    'redirectUris',
    'name',
    'type',
    'contact',
    'appUrl',
    'termsUrl',
    'privacyUrl',
    'plan',
    'action',
    'current',
    'next',
    'invitation',
    'email',
    'password',
  );
  const fields = fc.array(fc.tuple(names, text), { maxLength: 12 });
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), fields, fc.boolean(), async (path, pairs, withToken) => {
      const before = withToken ? null : await snapshot();
      const res = await browser.post(`${server.url}${path}`, withToken ? [['csrf', csrf], ...pairs] : pairs);
      await res.arrayBuffer();
      assert.ok(res.status < 500, `${res.status} for ${path} ${JSON.stringify(pairs)}`);
      if (before) {
        assert.ok([400, 403].includes(res.status), `${res.status} for ${path} without a token`);
        assert.deepEqual(await snapshot(), before, `${path} without a token changed nothing`);
      }
    }),
    { numRuns: 200 },
  );
  // The session survived (no password change or sign-out got through by accident).
  assert.equal((await browser.get(`${server.url}/account`)).status, 200);
});
