/**
 * The console end to end in a real browser (Chromium driven by playwright-core): accept an
 * invitation; register a public client; run the code flow with PKCE from a test client page
 * (oauth4webapi) through sign-in and consent to a loopback redirect and call the data API; revoke
 * the authorization and see the token fail; create, use and revoke an API key; apply a contract,
 * open a WebSocket session with the official SDK, close it from the console and see 4808. Each
 * page passes axe-core; screenshots in both languages and at phone width go to
 * test-output/screenshots/ (for a person to look at); the dashboard's weight and first paint are
 * printed.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { DMDATA, SERVICES } from '@dmdata/sdk-js';
import * as oauth from 'oauth4webapi';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { assertAccessible, launchChromium } from '../support/chromium.ts';
import { createInvitation } from '../../src/accounts/invitations.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SHOTS = join(process.cwd(), 'test-output', 'screenshots');
const insecure = { [oauth.allowInsecureRequests]: true };

/** The application: a start page linking to the authorization request, and the loopback callback. */
class TestApp {
  origin = '';
  authorizationUrl = '';
  private callbacks: ((url: URL) => void)[] = [];
  private server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', this.origin);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/start') {
      res.end(
        `<!doctype html><html lang="en"><title>Test app</title><a id="login" href="${this.authorizationUrl.replace(/&/g, '&amp;')}">Sign in with Namazu</a></html>`,
      );
      return;
    }
    for (const w of this.callbacks.splice(0)) w(url);
    res.end(
      '<!doctype html><html lang="en"><title>callback</title><p id="done">Back in the application.</p></html>',
    );
  });

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  nextCallback(): Promise<URL> {
    return new Promise((resolve) => this.callbacks.push(resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let app: TestApp;
const person = { email: 'invited@example.test', password: 'a long and good password' };
const cspViolations: string[] = [];

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  server = await startTestServer({ config: { signup: 'invitation' } });
  app = new TestApp();
  await app.listen();
  context = await browser.newContext({ locale: 'en-US' });
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
});

after(async () => {
  await browser?.close();
  await app?.close();
  await server?.close();
});

/** A scope's checkbox, labelled by what it allows with the scope's code at the end. */
const scopeBox = (p: Page, scope: string) => p.getByLabel(new RegExp(`\\s${scope.replace(/\./g, '\\.')}$`));

/** The console's main navigation. */
const nav = (p: Page) => p.getByRole('navigation', { name: 'Console' });

async function shoot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Visits a console page and checks it: accessible, and pictured in English. */
async function visit(path: string, name: string): Promise<void> {
  await page.goto(server.url + path);
  await assertAccessible(page, name);
  await shoot(page, `${name}-en`);
}

test('accept an invitation: the sign-up page creates the account and signs it in', async () => {
  const { token } = await createInvitation(server.ctx.db, server.ctx.pepper, { now: Date.now() });
  await page.goto(`${server.url}/account/signup?invitation=${encodeURIComponent(token)}`);
  await assertAccessible(page, 'sign-up');
  await shoot(page, 'signup-en');
  // A refused field first: the message appears beside it, and the page keeps what was typed.
  await page.getByLabel('E-mail address').fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.locator('#password-error').waitFor();
  assert.match(await page.locator('#password-error').innerText(), /at least|8 to/);
  await assertAccessible(page, 'sign-up with an error');
  await shoot(page, 'signup-error-en');
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/account'),
    page.getByRole('button', { name: 'Create account' }).click(),
  ]);
  assert.match(
    await page.locator('body').innerText(),
    new RegExp(`Signed in as ${person.email.replace('.', '\\.')}`),
  );
});

let clientId = '';

test('register a public client in the console', async () => {
  await nav(page).getByRole('link', { name: 'OAuth clients' }).click();
  await page.getByRole('link', { name: 'Register a client' }).click();
  await assertAccessible(page, 'client registration');
  await page.getByLabel('Application name').fill('Browser Test App');
  await page.getByRole('radio', { name: /^Public/ }).check();
  await page.getByLabel('Redirect URIs').fill(`${app.origin}/callback#frag`);
  for (const s of ['telegram.list', 'contract.list']) await scopeBox(page, s).check();
  await page.getByLabel('Public contact of the maker').fill('maker@test-app.example');
  await page.getByLabel('Application URL').fill('https://test-app.example/');
  await page.getByLabel('Terms of use URL').fill('https://test-app.example/terms');
  await page.getByLabel('Privacy policy URL').fill('https://test-app.example/privacy');
  await page.getByRole('button', { name: 'Register client' }).click();
  // The fragment is refused beside the field; the form keeps every value.
  await page.locator('#redirectUris-error').waitFor();
  assert.match(await page.locator('#redirectUris-error').innerText(), /must not contain a fragment/);
  assert.equal(await page.getByLabel('Application name').inputValue(), 'Browser Test App');
  await assertAccessible(page, 'client registration with an error');
  await shoot(page, 'client-error-en');
  await page.getByLabel('Redirect URIs').fill(`${app.origin}/callback`);
  await page.getByRole('button', { name: 'Register client' }).click();
  await page.locator('#client-id').waitFor();
  clientId = await page.locator('#client-id').innerText();
  assert.match(clientId, /^CId\./);
  assert.equal(await page.locator('#new-secret').count(), 0, 'a public client has no secret');
  await assertAccessible(page, 'client page');
  await shoot(page, 'client-en');
});

let accessToken = '';

test('the code flow with PKCE from the test app, through consent, to the data API', async () => {
  const issuer = new URL(server.url);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const client = { client_id: clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = `${app.origin}/callback`;
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'contract.list telegram.list',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  app.authorizationUrl = url.href;

  // A fresh profile: the app's page, then sign-in, then consent.
  const other = await browser.newContext();
  const p = await other.newPage();
  try {
    await p.goto(`${app.origin}/start`);
    await p.getByRole('link', { name: 'Sign in with Namazu' }).click();
    await p.waitForURL((u) => u.pathname === '/account/signin');
    await assertAccessible(p, 'sign-in');
    await shoot(p, 'signin-en');
    await p.getByLabel('E-mail address').fill(person.email);
    await p.getByLabel('Password').fill(person.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('button', { name: 'Allow' }).waitFor();
    assert.match(await p.locator('h1').innerText(), /Browser Test App/);
    await assertAccessible(p, 'consent');
    await shoot(p, 'consent-en');
    const arrived = app.nextCallback();
    await p.getByRole('button', { name: 'Allow' }).click();
    const back = await arrived;
    const params = oauth.validateAuthResponse(as, client, back, state);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    accessToken = tokens.access_token;
  } finally {
    await other.close();
  }
  const api = await fetch(`${server.url}/v2/contract`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  assert.equal(api.status, 200);
});

test('revoke the authorization in the console: the token fails at once', async () => {
  await nav(page).getByRole('link', { name: 'Dashboard' }).click();
  await assertAccessible(page, 'dashboard');
  await shoot(page, 'dashboard-en');
  await page.getByRole('button', { name: 'Revoke: Browser Test App' }).click();
  await page.getByRole('status').filter({ hasText: 'was revoked' }).waitFor();
  const api = await fetch(`${server.url}/v2/contract`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  assert.equal(api.status, 401);
});

let apiKey = '';

test('create an API key (shown once, with a copy button), use it, revoke it', async () => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await visit('/account/keys', 'keys');
  for (const s of ['contract.list', 'socket.start', 'socket.list', 'socket.close', 'telegram.get.earthquake'])
    await scopeBox(page, s).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('#new-key').waitFor();
  apiKey = await page.locator('#new-key').innerText();
  assert.match(apiKey, /^AKe\./);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), apiKey);
  await assertAccessible(page, 'new key');
  await shoot(page, 'key-created-en');
  const use = () => fetch(`${server.url}/v2/contract?key=${apiKey}`);
  assert.equal((await use()).status, 200);

  // A throwaway key to revoke; the first one is used for the WebSocket below.
  await page.goto(`${server.url}/account/keys`);
  await scopeBox(page, 'contract.list').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const spare = await page.locator('#new-key').innerText();
  assert.equal((await fetch(`${server.url}/v2/contract?key=${spare}`)).status, 200);
  await page.goto(`${server.url}/account/keys`);
  const rows = page.locator('tbody tr');
  assert.equal(await rows.count(), 2);
  // Newest first: the spare key's row.
  await rows
    .first()
    .getByRole('button', { name: /^Revoke/ })
    .click();
  await page.getByRole('status').filter({ hasText: 'was revoked' }).waitFor();
  assert.equal((await fetch(`${server.url}/v2/contract?key=${spare}`)).status, 401);
  assert.equal((await use()).status, 200);
});

test('apply a contract, open a session with the SDK, see it listed, close it: the client gets 4808', async () => {
  await visit('/account/contracts', 'contracts');
  assert.equal(await page.locator('#connection-limit').innerText(), '0');
  await page.getByRole('button', { name: 'Apply: 地震・津波関連' }).click();
  await page.getByRole('status').filter({ hasText: 'was started' }).waitFor();
  assert.equal(await page.locator('#connection-limit').innerText(), '1');

  const endpoints = Object.fromEntries(SERVICES.map((s) => [s, `${server.url}/v2/${s}`]));
  const sdk = new DMDATA({ credentials: { apikey: apiKey }, endpoints } as ConstructorParameters<
    typeof DMDATA
  >[0]);
  const ws = await sdk.socket.start({
    classifications: ['telegram.earthquake'],
    appName: 'console-e2e',
  } as Parameters<typeof sdk.socket.start>[0]);
  const emitter = ws as unknown as { once(event: string, listener: (...args: unknown[]) => void): void };
  const started = new Promise<{ socketId: number }>((resolve) =>
    emitter.once('start', (m) => resolve(m as { socketId: number })),
  );
  const closed = new Promise<number>((resolve) => emitter.once('close', (code) => resolve(code as number)));
  const { socketId } = await started;

  await visit('/account/sessions', 'sessions');
  const row = page.locator('tbody tr', { hasText: `#${socketId}` });
  assert.match(await row.innerText(), /console-e2e/);
  assert.match(await row.innerText(), /open/);
  assert.match(await row.innerText(), /127\.0\.0\.1/);
  await row.getByRole('button', { name: `Close #${socketId}` }).click();
  assert.equal(await closed, 4808);
  await page.getByRole('status').filter({ hasText: 'was closed' }).waitFor();
  assert.match(await page.locator('tbody tr', { hasText: `#${socketId}` }).innerText(), /closed/);
});

test('password page, Japanese pages and phone width; no CSP violation on any page', async () => {
  await visit('/account/password', 'password');
  await page.getByRole('link', { name: '日本語' }).click();
  await page.waitForURL((u) => u.pathname === '/account/password');
  assert.equal(await page.locator('html').getAttribute('lang'), 'ja');
  const pages = [
    '/account',
    '/account/keys',
    '/account/clients',
    '/account/clients/new',
    '/account/contracts',
    '/account/sessions',
    '/account/password',
  ];
  for (const path of pages) {
    await page.goto(server.url + path);
    assert.equal(await page.locator('html').getAttribute('lang'), 'ja', path);
    await assertAccessible(page, `${path} (ja)`);
    await shoot(page, `${path.slice(1).replace(/\//g, '-')}-ja`);
  }
  // Signed-out pages in Japanese (by Accept-Language: no cookie chosen yet).
  const visitor = await browser.newContext({ locale: 'ja-JP' });
  try {
    const v = await visitor.newPage();
    for (const path of ['/account/signin', '/account/signup']) {
      await v.goto(server.url + path);
      assert.equal(await v.locator('html').getAttribute('lang'), 'ja', path);
      await assertAccessible(v, `${path} (ja)`);
      await shoot(v, `${path.slice(1).replace(/\//g, '-')}-ja`);
    }
  } finally {
    await visitor.close();
  }
  const phone = await browser.newContext({
    viewport: { width: 375, height: 740 },
    isMobile: true,
    locale: 'ja-JP',
  });
  await phone.addCookies(await context.cookies());
  const p = await phone.newPage();
  try {
    for (const lang of ['en', 'ja']) {
      await phone.addCookies([{ name: 'lang', value: lang, url: server.url }]);
      for (const path of [
        '/account',
        '/account/keys',
        '/account/clients/new',
        '/account/contracts',
        '/account/sessions',
      ]) {
        await p.goto(server.url + path);
        const overflow = await p.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(overflow <= 0, `${path} fits a phone's width (${overflow}px too wide)`);
        // In one language at this size, as the layout test: the Japanese pages passed above.
        if (lang === 'en') await assertAccessible(p, `${path} at phone width`);
        await shoot(p, `phone-${path.slice(1).replace(/\//g, '-')}-${lang}`);
      }
    }
  } finally {
    await phone.close();
  }
  assert.deepEqual(cspViolations, []);
});

test('the dashboard: page weight (HTML + CSS + JS, gzip) and time to first render', async () => {
  const fresh = await browser.newContext();
  await fresh.addCookies(await context.cookies());
  const p = await fresh.newPage();
  const bodies: Promise<Buffer>[] = [];
  p.on('response', (r) => {
    const kind = r.request().resourceType();
    if (r.url().startsWith(server.url) && r.ok() && ['document', 'stylesheet', 'script'].includes(kind))
      bodies.push(r.body());
  });
  try {
    await p.goto(`${server.url}/account`, { waitUntil: 'load' });
    // The paint entry is recorded with the first frame, which on a busy machine may come after `load`.
    const paint = (await (
      await p.waitForFunction(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      )
    ).jsonValue()) as number;
    assert.ok(paint > 0, `first contentful paint ${paint}`);
    const files = await Promise.all(bodies);
    const gzipped = files.reduce((n, b) => n + gzipSync(b).length, 0);
    assert.equal(files.length, 2, 'the page and its stylesheet');
    assert.ok(gzipped < 100 * 1024, `dashboard ${gzipped} bytes gzip`);
    console.log(
      `dashboard: ${bodies.length} files, ${gzipped} bytes gzip, first contentful paint ${paint.toFixed(0)} ms`,
    );
  } finally {
    await fresh.close();
  }
});
