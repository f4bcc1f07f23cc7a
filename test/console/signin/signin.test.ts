import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Browser, parseForms, signInThroughForm, startHarness, type Harness } from '../../support/browser.ts';
import { testFetch } from '../../support/fetch.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ listen: false });
});
after(() => h.close());

const signinPage = () => `${h.origin}/account/signin?return_to=%2Faccount`;

async function signinForm(browser: Browser) {
  const res = await browser.get(signinPage());
  assert.equal(res.status, 200);
  return { res, html: await res.text() };
}

test('sign-in page: safe headers, CSRF field, pre-sign-in cookie', async () => {
  const browser = new Browser();
  const { res, html } = await signinForm(browser);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  assert.match(res.headers.get('content-security-policy')!, /form-action 'self'/);
  const cookie = res.headers.getSetCookie()[0]!;
  assert.match(cookie, /^namazu_signin=/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.doesNotMatch(cookie, /Secure/);
  const form = parseForms(html)[0]!;
  assert.ok(form.fields.some(([k]) => k === 'csrf'));
});

test('wrong password → 401 and no session; right password → session cookie and return_to', async () => {
  const browser = new Browser();
  const wrong = await browser.submit((await signinForm(browser)).html, '/account/signin', [
    ['email', h.user.email],
    ['password', 'not the password'],
  ]);
  assert.equal(wrong.status, 401);
  assert.match(await wrong.text(), /password is wrong/);
  assert.equal(browser.cookies.has('namazu_session'), false);

  const ok = await signInThroughForm(browser, signinPage(), h.user.email.toUpperCase(), h.user.password);
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get('location'), `${h.origin}/account`);
  const set = ok.headers.getSetCookie().find((c) => c.startsWith('namazu_session='))!;
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Lax/);
  const token = browser.cookies.get('namazu_session')!;
  const rows = await h.server.ctx.db.query<{ digest: string }>('SELECT digest FROM web_sessions');
  assert.ok(rows.length >= 1);
  assert.ok(rows.every((r) => r.digest !== token && !r.digest.includes(token)));
  const account = await browser.get(`${h.origin}/account`);
  assert.equal(account.status, 200);
  assert.ok((await account.text()).includes(h.user.email));
});

test('sign-in CSRF token missing, wrong or from another browser → 403, no session', async () => {
  const browser = new Browser();
  const { html } = await signinForm(browser);
  const form = parseForms(html)[0]!;
  const creds: [string, string][] = [
    ['email', h.user.email],
    ['password', h.user.password],
  ];
  const noCsrf = form.fields.filter(([k]) => k !== 'csrf');
  assert.equal((await browser.post(form.action, [...noCsrf, ...creds])).status, 403);
  assert.equal((await browser.post(form.action, [...noCsrf, ['csrf', 'forged'], ...creds])).status, 403);
  const other = new Browser();
  const otherForm = parseForms((await signinForm(other)).html)[0]!;
  assert.equal((await browser.post(form.action, [...otherForm.fields, ...creds])).status, 403);
  // Without any cookie at all.
  const bare = await testFetch(form.action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...form.fields, ...creds]).toString(),
  });
  assert.equal(bare.status, 403);
  assert.equal(browser.cookies.has('namazu_session'), false);
});

test('return_to cannot leave the site', async () => {
  for (const target of [
    '//evil.example/x',
    'https://evil.example/',
    '/\\evil.example',
    'javascript:alert(1)',
  ]) {
    const browser = new Browser();
    const res = await signInThroughForm(
      browser,
      `${h.origin}/account/signin?return_to=${encodeURIComponent(target)}`,
      h.user.email,
      h.user.password,
    );
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `${h.origin}/account`, target);
  }
});

test('sign-in failures are limited: 429 + Retry-After, even for the right password, until the window ends', async () => {
  const email = `limited-${Math.random().toString(36).slice(2)}@example.com`;
  await import('../../../src/accounts/accounts.ts').then((m) =>
    m.createAccount(h.server.ctx.db, { email, password: 'the right password' }),
  );
  const browser = new Browser();
  const { html } = await signinForm(browser);
  for (let i = 0; i < 10; i++) {
    const res = await browser.submit(html, '/account/signin', [
      ['email', email],
      ['password', `guess ${i}`],
    ]);
    assert.equal(res.status, 401, `attempt ${i + 1}`);
  }
  const blocked = await browser.submit(html, '/account/signin', [
    ['email', email],
    ['password', 'the right password'],
  ]);
  assert.equal(blocked.status, 429);
  const retry = Number(blocked.headers.get('retry-after'));
  assert.ok(retry > 0 && retry <= 900, `Retry-After ${retry}`);
  assert.equal(browser.cookies.has('namazu_session'), false);

  h.clock.advance(15 * 60_000 + 1000);
  const ok = await browser.submit(html, '/account/signin', [
    ['email', email],
    ['password', 'the right password'],
  ]);
  assert.equal(ok.status, 303);
});

test('secure cookies with __Host- names when the auth URL is https', async () => {
  h.server.ctx.config.authUrl = 'https://auth.example.org';
  try {
    const res = await testFetch(signinPage(), { redirect: 'manual' });
    const cookie = res.headers.getSetCookie()[0]!;
    assert.match(cookie, /^__Host-namazu_signin=/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /Path=\//);
    const form = parseForms(await res.text())[0]!;
    assert.equal(form.action, 'https://auth.example.org/account/signin');
  } finally {
    h.server.ctx.config.authUrl = null;
  }
});

test('sign-out needs the CSRF token, then ends the session', async () => {
  const browser = new Browser();
  await signInThroughForm(browser, signinPage(), h.user.email, h.user.password);
  const page = await (await browser.get(`${h.origin}/account`)).text();
  const form = parseForms(page).find((f) => f.action.endsWith('/account/signout'))!;
  const refused = await browser.post(form.action, [['csrf', 'nope']]);
  assert.equal(refused.status, 403);
  assert.equal((await browser.get(`${h.origin}/account`)).status, 200);
  const out = await browser.post(form.action, form.fields);
  assert.equal(out.status, 303);
  const again = await browser.get(`${h.origin}/account`);
  assert.equal(again.status, 303);
  assert.match(again.headers.get('location')!, /\/account\/signin\?return_to=%2Faccount$/);
});

test('sessions expire after 12 hours', async () => {
  const browser = new Browser();
  await signInThroughForm(browser, signinPage(), h.user.email, h.user.password);
  assert.equal((await browser.get(`${h.origin}/account`)).status, 200);
  h.clock.advance(12 * 3600_000 + 1000);
  assert.equal((await browser.get(`${h.origin}/account`)).status, 303);
});

test('malformed and oversized form bodies are 4xx pages, never 5xx', async () => {
  const post = (body: string, type = 'application/x-www-form-urlencoded') =>
    testFetch(`${h.origin}/account/signin`, { method: 'POST', headers: { 'content-type': type }, body });
  const bad = await post('email=%FF');
  assert.equal(bad.status, 400);
  assert.match(bad.headers.get('content-type')!, /^text\/html/);
  const big = await post('email=' + 'x'.repeat(20_000));
  assert.equal(big.status, 413);
  assert.match(big.headers.get('content-type')!, /^text\/html/);
  assert.equal((await post('{"email":"x"}', 'application/json')).status, 400);
  // A NUL byte in the address is just a wrong address (it could never reach the database).
  const browser = new Browser();
  const nul = await browser.submit((await signinForm(browser)).html, '/account/signin', [
    ['email', 'user\u0000@example.com'],
    ['password', 'whatever'],
  ]);
  assert.equal(nul.status, 401);
});

test('"Not you?" on the consent page signs out and comes back to the same request as someone else', async () => {
  const browser = new Browser();
  await signInThroughForm(browser, signinPage(), h.user.email, h.user.password);
  const authorize = `${h.origin}/account/oauth2/v1/auth?${new URLSearchParams({
    client_id: h.clients.C1.client.clientId,
    response_type: 'code',
    scope: 'telegram.list',
    state: 'not-you',
  })}`;
  const consent = await (await browser.get(authorize)).text();
  assert.ok(consent.includes(h.user.email));
  const out = await browser.submit(consent, '/account/signout');
  assert.equal(out.status, 303);
  const signinAgain = out.headers.get('location')!;
  const { account, password } = await h.server.createAccount();
  const back = await signInThroughForm(browser, signinAgain, account.email, password);
  assert.equal(back.headers.get('location'), authorize);
  const second = await (await browser.get(authorize)).text();
  assert.ok(second.includes(account.email));
  assert.ok(!second.includes(h.user.email));
});

test('signing in again ends the session the browser had', async () => {
  const first = new Browser();
  await signInThroughForm(first, signinPage(), h.user.email, h.user.password);
  const firstSession = first.cookies.get('namazu_session')!;
  assert.equal((await first.get(`${h.origin}/account`)).status, 200);

  // The same browser fetches a sign-in form (before its session cookie is set) and signs in again.
  const again = new Browser();
  const html = await (await again.get(signinPage())).text();
  again.cookies.set('namazu_session', firstSession);
  const { account, password } = await h.server.createAccount();
  const res = await again.submit(html, '/account/signin', [
    ['email', account.email],
    ['password', password],
  ]);
  assert.equal(res.status, 303);
  assert.notEqual(again.cookies.get('namazu_session'), firstSession);
  assert.equal((await first.get(`${h.origin}/account`)).status, 303);
});
