import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Browser, signInThroughForm, startHarness, type Harness } from '../support/browser.ts';
import { testFetch } from '../support/fetch.ts';

/**
 * Properties of the authorization endpoint over generated requests: never a 5xx, and never a
 * redirect anywhere but to a URI the client registered (or its loopback variant).
 */

let h: Harness;
let signedIn: Browser;
before(async () => {
  h = await startHarness({ listen: false });
  signedIn = new Browser();
  await signInThroughForm(
    signedIn,
    `${h.origin}/account/signin?return_to=%2Faccount`,
    h.user.email,
    h.user.password,
  );
});
after(() => h.close());

const junk = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '%', '%FF', '\u0000', '&', '=', '#', '..', 'ü'.repeat(40)),
);

test('generated authorization requests: no 5xx, no redirect to an unregistered URI', async () => {
  const clientIds = Object.values(h.clients).map((c) => c.client.clientId);
  const redirects = [
    'https://app.example/cb',
    'https://two.example/cb',
    'http://127.0.0.1:53682/callback',
    'http://localhost:1/callback',
    'https://evil.example/cb',
    'http://127.0.0.1.evil.example/callback',
  ];
  const value = (name: string) =>
    ({
      client_id: fc.oneof(fc.constantFrom(...clientIds), junk),
      redirect_uri: fc.oneof(fc.constantFrom(...redirects), junk),
      response_type: fc.oneof(fc.constantFrom('code', 'token', 'code token'), junk),
      response_mode: fc.oneof(fc.constantFrom('query', 'fragment', 'form_post'), junk),
      scope: fc.oneof(fc.constantFrom('telegram.list', 'telegram.list telegram.data', 'nope'), junk),
      code_challenge_method: fc.oneof(fc.constantFrom('S256', 'plain'), junk),
      code_challenge: fc.oneof(fc.constant('a'.repeat(43)), junk),
    })[name] ?? junk;
  const names = fc.constantFrom(
    'client_id',
    'redirect_uri',
    'response_type',
    'response_mode',
    'scope',
    'state',
    'code_challenge',
    'code_challenge_method',
    'dpop_jkt',
    'prompt',
    'x',
  );
  const request = fc.array(
    names.chain((name) => value(name).map((v) => [name, v] as [string, string])),
    { maxLength: 12 },
  );
  const registered = Object.values(h.clients).flatMap((c) => c.client.redirectUris);
  const allowed = (location: string) =>
    registered.some((uri) => location.startsWith(uri)) ||
    /^http:\/\/(127\.0\.0\.1|localhost):\d+\/callback[?#]/.test(location);

  await fc.assert(
    fc.asyncProperty(request, fc.boolean(), async (pairs, withSession) => {
      const url = `${h.origin}/account/oauth2/v1/auth?${new URLSearchParams(pairs)}`;
      const res = withSession ? await signedIn.get(url) : await testFetch(url, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.ok([200, 303, 400].includes(res.status), `status ${res.status} for ${url}`);
      const location = res.headers.get('location');
      if (location && !location.startsWith(`${h.origin}/account/signin?`)) {
        assert.ok(allowed(location), `redirected to ${location}`);
      }
    }),
    { numRuns: 300 },
  );
});

test('raw, badly encoded query strings: no 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 200 }), async (raw) => {
      const encoded = raw.replace(/[^\x21-\x7e]|#/g, (c) => encodeURIComponent(c));
      const res = await testFetch(`${h.origin}/account/oauth2/v1/auth?${encoded}`, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.ok(res.status < 500, `status ${res.status} for ${encoded}`);
    }),
    { numRuns: 200 },
  );
});
