import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../../support/chromium.ts';
import { createClient, type OAuthClient } from '../../../src/issuer/clients.ts';
import { scopeDescriptions } from '../../../src/scopes.ts';
import { oauthPaths } from '../../../src/oauth/metadata.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/**
 * The sign-in and consent pages in a real browser (Chromium driven by playwright-core): the whole
 * code flow by clicks, denial, form_post auto-submitting under the page's CSP, and framing refused.
 * The redirect target is a small loopback HTTP server recording what reaches it.
 */

interface Arrival {
  method: string;
  url: URL;
  body: string;
}

/** The application side: records every request to /callback; serves /framer, a page framing others. */
class RedirectTarget {
  readonly arrivals: Arrival[] = [];
  private waiters: ((a: Arrival) => void)[] = [];
  private server: Server;
  origin = '';
  framed: string[] = [];

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        if (body.length < 65536) body += chunk;
      });
      req.on('end', () => {
        const url = new URL(req.url ?? '/', this.origin);
        res.setHeader('content-type', 'text/html; charset=utf-8');
        if (url.pathname === '/framer') {
          res.end(
            `<!doctype html><title>framer</title>` +
              this.framed.map((src, i) => `<iframe id="f${i}" src="${src}"></iframe>`).join(''),
          );
          return;
        }
        if (url.pathname === '/plain') {
          res.end('<!doctype html><title>plain</title><p id="plain">a page that may be framed</p>');
          return;
        }
        const arrival = { method: req.method ?? '', url, body };
        this.arrivals.push(arrival);
        for (const w of this.waiters.splice(0)) w(arrival);
        res.end('<!doctype html><title>callback</title><p id="done">Back in the application.</p>');
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next request to /callback after `since` arrivals (already there, or yet to come). */
  next(since: number): Promise<Arrival> {
    const there = this.arrivals[since];
    if (there) return Promise.resolve(there);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('nothing reached the redirect target')), 15_000);
      this.waiters.push((a) => {
        clearTimeout(timer);
        resolve(a);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const scopes = ['telegram.list', 'telegram.data', 'contract.list'];

let server: TestServer;
let browser: Browser;
let target: RedirectTarget;
let client: OAuthClient;
let user: { email: string; password: string };

before(async () => {
  browser = await launchChromium();
  target = new RedirectTarget();
  await target.listen();
  server = await startTestServer();
  const created = await server.createAccount();
  user = { email: created.account.email, password: created.password };
  const { account: maker } = await server.createAccount();
  ({ client } = await createClient(server.ctx.db, server.ctx.pepper, {
    accountId: maker.id,
    name: 'Quake Watch',
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    grants: ['authorization_code', 'refresh_token'],
    scopes,
    contact: 'maker@quake.example',
    appUrl: 'https://quake.example/',
    termsUrl: 'https://quake.example/terms',
    privacyUrl: 'https://quake.example/privacy',
  }));
});

after(async () => {
  await browser?.close();
  await target?.close();
  await server?.close();
});

interface Flow {
  url: string;
  state: string;
  verifier: string;
  redirectUri: string;
}

/** An authorization request with PKCE S256 and state, redirecting to the loopback target. */
function authorizationRequest(extra: Record<string, string> = {}): Flow {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const redirectUri = `${target.origin}/callback`;
  const url = new URL(server.url + oauthPaths.authorize);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }))
    url.searchParams.set(k, v);
  return { url: url.href, state, verifier, redirectUri };
}

/** A fresh browser profile (no cookies) that opens the request and signs in on the real form. */
async function signInToConsent(flow: Flow): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(flow.url);
  assert.equal(new URL(page.url()).pathname, '/account/signin');
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === oauthPaths.authorize),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  return page;
}

test('sign in, read the consent page, approve: the code reaches the app and redeems for a token', async () => {
  const flow = authorizationRequest();
  const page = await signInToConsent(flow);
  try {
    const text = await page.locator('body').innerText();
    assert.match(await page.locator('h1').innerText(), /Allow Quake Watch to use your account\?/);
    assert.ok(text.includes(`Signed in as ${user.email}`));
    for (const s of scopes) assert.ok(text.includes(scopeDescriptions[s]!), `scope ${s} in plain words`);
    assert.ok(!text.includes(scopeDescriptions['telegram.get.earthquake']!), 'only the requested scopes');
    assert.ok(text.includes('Maker contact: maker@quake.example'));
    for (const [label, href] of [
      ['Application', 'https://quake.example/'],
      ['Terms of use', 'https://quake.example/terms'],
      ['Privacy policy', 'https://quake.example/privacy'],
    ]) {
      assert.ok(text.includes(`${label}: ${href}`), label);
      assert.equal(await page.locator(`a[href="${href}"]`).count(), 1, `link to ${href}`);
    }
    // The one screenshot, for a person to look at; it is not compared to anything.
    await page.screenshot({ path: join(tmpdir(), 'namazu-consent.png'), fullPage: true });

    const since = target.arrivals.length;
    await page.getByRole('button', { name: 'Allow' }).click();
    const arrival = await target.next(since);
    await page.locator('#done').waitFor();
    assert.equal(arrival.method, 'GET');
    assert.equal(arrival.url.pathname, '/callback');
    assert.equal(arrival.url.searchParams.get('state'), flow.state);
    assert.equal(arrival.url.searchParams.get('iss'), server.url);
    const code = arrival.url.searchParams.get('code');
    assert.ok(code);
    assert.equal(new URL(page.url()).searchParams.get('code'), code);

    const res = await fetch(server.url + oauthPaths.token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: flow.redirectUri,
        client_id: client.clientId,
        code_verifier: flow.verifier,
      }),
    });
    assert.equal(res.status, 200);
    const tokens = (await res.json()) as Record<string, unknown>;
    assert.match(String(tokens.access_token), /^ATn\./);
    assert.equal(String(tokens.token_type).toLowerCase(), 'bearer');
    assert.equal(tokens.scope, scopes.join(' '));
  } finally {
    await page.context().close();
  }
});

test('deny: the app receives access_denied with state and iss, and no code', async () => {
  const flow = authorizationRequest();
  const page = await signInToConsent(flow);
  try {
    const since = target.arrivals.length;
    await page.getByRole('button', { name: 'Deny' }).click();
    const arrival = await target.next(since);
    assert.equal(arrival.url.searchParams.get('error'), 'access_denied');
    assert.equal(arrival.url.searchParams.get('state'), flow.state);
    assert.equal(arrival.url.searchParams.get('iss'), server.url);
    assert.equal(arrival.url.searchParams.get('code'), null);
  } finally {
    await page.context().close();
  }
});

test('response_mode=form_post: the page auto-submits under its CSP and the app receives a POST', async () => {
  const flow = authorizationRequest({ response_mode: 'form_post' });
  const page = await signInToConsent(flow);
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  try {
    const since = target.arrivals.length;
    await page.getByRole('button', { name: 'Allow' }).click();
    const arrival = await target.next(since);
    await page.locator('#done').waitFor();
    assert.equal(arrival.method, 'POST');
    assert.equal(arrival.url.search, '');
    const fields = new URLSearchParams(arrival.body);
    assert.ok(fields.get('code'));
    assert.equal(fields.get('state'), flow.state);
    assert.equal(fields.get('iss'), server.url);
    assert.deepEqual(violations, []);
  } finally {
    await page.context().close();
  }
});

test('the pages cannot be framed: an iframe of another site shows nothing of them', async () => {
  const flow = authorizationRequest();
  const page = await signInToConsent(flow);
  try {
    // The same browser profile is signed in, so an unframed load would show the consent page; the
    // plain page in the second frame shows that framing itself works on the framing page.
    target.framed = [flow.url, `${target.origin}/plain`];
    await page.goto(`${target.origin}/framer`);
    const plain = page.frameLocator('#f1').locator('#plain');
    await plain.waitFor();
    const consent = await page.$('#f0');
    const frame = await consent!.contentFrame();
    assert.ok(frame);
    await frame.waitForLoadState();
    assert.notEqual(frame.url(), flow.url);
    assert.equal(await frame.locator('button').count(), 0);
    assert.doesNotMatch(await frame.content(), /Quake Watch/);
  } finally {
    target.framed = [];
    await page.context().close();
  }
});
