import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import {
  Browser,
  parseForms,
  signInThroughForm,
  signedInBrowser,
  startHarness,
  type Harness,
} from '../support/browser.ts';

/**
 * The authorization endpoint (docs/oauth.md "Authorization endpoint"), cases A1–A22, through real
 * HTML forms.
 */

let h: Harness;
let as: oauth.AuthorizationServer;
const verifier = oauth.generateRandomCodeVerifier();
let challenge: string;

before(async () => {
  h = await startHarness();
  const issuer = new URL(h.origin);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
  );
  challenge = await oauth.calculatePKCECodeChallenge(verifier);
});
after(() => h.close());

type Name = keyof Harness['clients'];

function p1Params(extra: Record<string, string | null> = {}): Record<string, string | null> {
  return {
    client_id: h.clients.P1.client.clientId,
    redirect_uri: 'http://127.0.0.1:53682/callback',
    response_type: 'code',
    scope: 'telegram.list telegram.data',
    state: 'st-' + Math.random().toString(36).slice(2),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

function c1Params(extra: Record<string, string | null> = {}): Record<string, string | null> {
  return {
    client_id: h.clients.C1.client.clientId,
    redirect_uri: 'https://app.example/cb',
    response_type: 'code',
    scope: 'telegram.list',
    state: 'c1-state',
    ...extra,
  };
}

function authorizeUrl(params: Record<string, string | null>): string {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.append(k, v);
  return url.href;
}

/** A browser already signed in as the test user. */
const signedIn = () => signedInBrowser(h.origin, h.user.email, h.user.password);

/** Runs the authorization request to the consent page (signing in through the form when asked). */
async function consentPage(browser: Browser, url: string): Promise<string> {
  let res = await browser.get(url);
  if (res.status === 303 && res.headers.get('location')!.includes('/account/signin')) {
    const back = await signInThroughForm(
      browser,
      res.headers.get('location')!,
      h.user.email,
      h.user.password,
    );
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), url);
    res = await browser.get(url);
  }
  assert.equal(res.status, 200, `expected the consent page, got ${res.status}`);
  return res.text();
}

async function decide(browser: Browser, html: string, decision: 'approve' | 'deny'): Promise<Response> {
  return browser.submit(html, '/auth/consent', [['decision', decision]]);
}

function clientOf(name: Name): oauth.Client {
  return { client_id: h.clients[name].client.clientId };
}

/** The response an unsigned-in user agent gets for an authorization URL (no redirect following). */
async function plainGet(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

function expectPage400(res: Response) {
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
}

/** Asserts a redirected error with `iss` (checked by oauth4webapi) and the given code and state. */
function expectRedirectError(
  res: Response,
  name: Name,
  code: string,
  state: string | typeof oauth.expectNoState,
) {
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  const params = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
  assert.equal(params.get('iss'), as.issuer);
  assert.throws(
    () => oauth.validateAuthResponse(as, clientOf(name), params, state),
    (err: unknown) => err instanceof oauth.AuthorizationResponseError && err.error === code,
  );
  return params;
}

describe('authorization endpoint', () => {
  test('A1: P1 + S256 + loopback port → code, state and iss at that port', async () => {
    const params = p1Params({ dpop_jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' });
    const browser = new Browser();
    const html = await consentPage(browser, authorizeUrl(params));
    const res = await decide(browser, html, 'approve');
    assert.equal(res.status, 303);
    const location = new URL(res.headers.get('location')!);
    assert.equal(location.origin, 'http://127.0.0.1:53682');
    assert.equal(location.pathname, '/callback');
    const result = oauth.validateAuthResponse(as, clientOf('P1'), location, params.state!);
    const code = result.get('code')!;
    assert.match(code, /^ACe\.[A-Za-z0-9_-]{43}$/);
    const rows = await h.server.ctx.db.query<Record<string, unknown>>(
      'SELECT redirect_uri, code_challenge, code_challenge_method, dpop_jkt, scopes, account_id, digest FROM oauth_codes WHERE client_id = $1',
      [h.clients.P1.client.clientId],
    );
    const row = rows.find((r) => r.code_challenge === challenge)!;
    assert.equal(row.redirect_uri, 'http://127.0.0.1:53682/callback');
    assert.equal(row.code_challenge_method, 'S256');
    assert.equal(row.dpop_jkt, params.dpop_jkt);
    assert.deepEqual(row.scopes, ['telegram.list', 'telegram.data']);
    assert.equal(row.account_id, h.user.id);
    assert.notEqual(row.digest, code);
  });

  test('A2: missing client_id → 400 page', async () => {
    expectPage400(await plainGet(authorizeUrl(p1Params({ client_id: null }))));
  });

  test('A3: unknown client → 400 page', async () => {
    expectPage400(await plainGet(authorizeUrl(p1Params({ client_id: 'CId.unknown' }))));
    for (const id of ['CId.\u0000', 'CId. x', 'CId.' + 'x'.repeat(300)]) {
      expectPage400(await plainGet(authorizeUrl(p1Params({ client_id: id }))));
    }
  });

  test('A4: unregistered redirect → 400 page, no redirect', async () => {
    expectPage400(await plainGet(authorizeUrl(c1Params({ redirect_uri: 'https://evil.example/cb' }))));
  });

  test('A5: exact-match variants → 400 page', async () => {
    for (const uri of [
      'https://app.example:443/cb',
      'https://APP.EXAMPLE/cb',
      'https://app.example/cb/',
      'https://app.example/cb?x=1',
      'https://app.example/x/../cb',
      'https://app.example%2Fcb',
      'https://app.example/cb#f',
    ]) {
      expectPage400(await plainGet(authorizeUrl(c1Params({ redirect_uri: uri }))));
    }
  });

  test('A6: redirect omitted with several registered → 400 page; with one registered → used', async () => {
    expectPage400(
      await plainGet(authorizeUrl(c1Params({ client_id: h.clients.C2.client.clientId, redirect_uri: null }))),
    );
    const res = await plainGet(authorizeUrl(c1Params({ redirect_uri: null, response_type: 'token' })));
    expectRedirectError(res, 'C1', 'unsupported_response_type', 'c1-state');
    assert.ok(res.headers.get('location')!.startsWith('https://app.example/cb#'));
  });

  test('A7: loopback negatives → 400 page', async () => {
    for (const uri of [
      'https://127.0.0.1:1/callback',
      'http://127.0.0.1:53682/callback2',
      'http://127.0.0.1.evil.example:53682/callback',
      'http://127.000.000.001:53682/callback',
      'HTTP://127.0.0.1:53682/callback',
      'http://127.255.255.255:53682/callback',
    ]) {
      expectPage400(await plainGet(authorizeUrl(p1Params({ redirect_uri: uri }))));
    }
    // The loopback rule needs redirect_uri in the request.
    expectPage400(await plainGet(authorizeUrl(p1Params({ redirect_uri: null }))));
  });

  test('A8: missing response_type → invalid_request', async () => {
    const params = p1Params({ response_type: null });
    expectRedirectError(await plainGet(authorizeUrl(params)), 'P1', 'invalid_request', params.state!);
  });

  test('A9: response_type=token → unsupported_response_type', async () => {
    const params = p1Params({ response_type: 'token' });
    expectRedirectError(
      await plainGet(authorizeUrl(params)),
      'P1',
      'unsupported_response_type',
      params.state!,
    );
  });

  test('A10: P1 without code_challenge → invalid_request', async () => {
    const params = p1Params({ code_challenge: null, code_challenge_method: null });
    expectRedirectError(await plainGet(authorizeUrl(params)), 'P1', 'invalid_request', params.state!);
  });

  test('A11: unknown code_challenge_method → unsupported_code_challenge_method', async () => {
    const params = p1Params({ code_challenge_method: 'S512' });
    expectRedirectError(
      await plainGet(authorizeUrl(params)),
      'P1',
      'unsupported_code_challenge_method',
      params.state!,
    );
  });

  test('A12: challenge too short, too long or with illegal characters → invalid_request', async () => {
    for (const c of ['a'.repeat(42), 'a'.repeat(129), 'a'.repeat(42) + '+', 'a'.repeat(42) + '=']) {
      const params = p1Params({ code_challenge: c });
      expectRedirectError(await plainGet(authorizeUrl(params)), 'P1', 'invalid_request', params.state!);
    }
    for (const c of ['a'.repeat(43), 'a'.repeat(128)]) {
      const res = await plainGet(
        authorizeUrl(p1Params({ code_challenge: c, code_challenge_method: 'plain' })),
      );
      assert.equal(res.status, 303);
      assert.match(res.headers.get('location')!, /\/account\/signin\?/);
    }
  });

  test('A13: unknown scope → invalid_scope', async () => {
    const params = p1Params({ scope: 'telegram.list unknown.scope' });
    expectRedirectError(await plainGet(authorizeUrl(params)), 'P1', 'invalid_scope', params.state!);
    const notAllowed = p1Params({ scope: 'socket.start' });
    expectRedirectError(await plainGet(authorizeUrl(notAllowed)), 'P1', 'invalid_scope', notAllowed.state!);
  });

  test('A14: repeated parameter → invalid_request', async () => {
    for (const name of ['scope', 'response_type', 'code_challenge', 'response_mode']) {
      const params = p1Params();
      const url = new URL(authorizeUrl(params));
      url.searchParams.append(name, url.searchParams.get(name) ?? 'query');
      if (name === 'response_mode') url.searchParams.append(name, 'query');
      expectRedirectError(await plainGet(url.href), 'P1', 'invalid_request', params.state!);
    }
    const state = new URL(authorizeUrl(p1Params()));
    state.searchParams.append('state', 'again');
    expectRedirectError(await plainGet(state.href), 'P1', 'invalid_request', oauth.expectNoState);
  });

  test('A15: user denies → access_denied', async () => {
    const browser = await signedIn();
    const params = p1Params();
    const res = await decide(browser, await consentPage(browser, authorizeUrl(params)), 'deny');
    expectRedirectError(res, 'P1', 'access_denied', params.state!);
  });

  test('A16: CC starts a code flow → unauthorized_client', async () => {
    const params = c1Params({
      client_id: h.clients.CC.client.clientId,
      redirect_uri: 'https://cc.example/cb',
    });
    expectRedirectError(await plainGet(authorizeUrl(params)), 'CC', 'unauthorized_client', 'c1-state');
  });

  test('A17: missing state or state over 64 bytes → invalid_request', async () => {
    expectRedirectError(
      await plainGet(authorizeUrl(p1Params({ state: null }))),
      'P1',
      'invalid_request',
      oauth.expectNoState,
    );
    expectRedirectError(
      await plainGet(authorizeUrl(p1Params({ state: 'ü'.repeat(32) + 'x' }))),
      'P1',
      'invalid_request',
      oauth.expectNoState,
    );
  });

  test('A18: every redirect error carries iss and, when valid, state', async () => {
    const cases: Record<string, string | null>[] = [
      { response_type: null },
      { response_type: 'token' },
      { scope: 'nope' },
      { scope: null },
      { code_challenge: null, code_challenge_method: null },
      { code_challenge_method: 'S1' },
      { response_mode: 'weird' },
      { dpop_jkt: 'x' },
      { prompt: 'none' },
    ];
    for (const extra of cases) {
      const params = p1Params({ state: 'keep/this+&=state', ...extra });
      const res = await plainGet(authorizeUrl(params));
      assert.equal(res.status, 303, JSON.stringify(extra));
      const location = new URL(res.headers.get('location')!);
      const got = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
      assert.equal(got.get('iss'), as.issuer, JSON.stringify(extra));
      assert.equal(got.get('state'), 'keep/this+&=state', JSON.stringify(extra));
      assert.ok(got.get('error'), JSON.stringify(extra));
    }
  });

  test('A19: state with &=/+ and multibyte characters is echoed exactly', async () => {
    const browser = await signedIn();
    const state = 'a&b=c/d+e%20f 地震😀';
    const params = p1Params({ state });
    const res = await decide(browser, await consentPage(browser, authorizeUrl(params)), 'approve');
    const result = oauth.validateAuthResponse(
      as,
      clientOf('P1'),
      new URL(res.headers.get('location')!),
      state,
    );
    assert.equal(result.get('state'), state);
    const error = await plainGet(authorizeUrl(p1Params({ state, scope: 'nope' })));
    expectRedirectError(error, 'P1', 'invalid_scope', state);
  });

  test('the station parameter scopes are requested, shown on the consent page and granted', async () => {
    // Earthquake apps built on the production service ask for parameter.earthquake beside the rest.
    const browser = await signedIn();
    const params = p1Params({ scope: 'telegram.list parameter.earthquake parameter.tsunami' });
    const html = await consentPage(browser, authorizeUrl(params));
    assert.match(
      html,
      /Read the list of seismic-intensity stations <span class="muted">\(parameter\.earthquake\)/,
    );
    assert.match(html, /\(parameter\.tsunami\)/);
    const res = await decide(browser, html, 'approve');
    const code = oauth.validateAuthResponse(
      as,
      clientOf('P1'),
      new URL(res.headers.get('location')!),
      params.state!,
    );
    assert.ok(code.get('code'));
    const rows = await h.server.ctx.db.query<{ scopes: string[] }>(
      "SELECT scopes FROM oauth_codes WHERE 'parameter.tsunami' = ANY(scopes)",
    );
    assert.equal(rows.length, 1);
    assert.deepEqual([...rows[0]!.scopes].sort(), [
      'parameter.earthquake',
      'parameter.tsunami',
      'telegram.list',
    ]);
  });

  test('A20: response_mode=fragment and form_post deliver correctly', async () => {
    const browser = await signedIn();
    const fragment = p1Params({ response_mode: 'fragment' });
    const res = await decide(browser, await consentPage(browser, authorizeUrl(fragment)), 'approve');
    const location = new URL(res.headers.get('location')!);
    assert.equal(location.search, '');
    const fromHash = oauth.validateAuthResponse(
      as,
      clientOf('P1'),
      new URLSearchParams(location.hash.slice(1)),
      fragment.state!,
    );
    assert.match(fromHash.get('code')!, /^ACe\./);

    const formPost = p1Params({ response_mode: 'form_post' });
    const page = await decide(browser, await consentPage(browser, authorizeUrl(formPost)), 'approve');
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:53682/);
    assert.match(csp, /script-src 'sha256-/);
    const pageHtml = await page.text();
    // The auto-submit script is exactly what the CSP's hash allows, so a browser runs it.
    const script = /<script>([^<]*)<\/script>/.exec(pageHtml)![1]!;
    assert.ok(csp.includes(`'sha256-${createHash('sha256').update(script).digest('base64')}'`));
    const [form] = parseForms(pageHtml);
    assert.equal(form!.method, 'post');
    assert.equal(form!.action, 'http://127.0.0.1:53682/callback');
    const body = new URLSearchParams(form!.fields);
    assert.deepEqual([...body.keys()], ['code', 'state', 'iss']);
    const fromBody = oauth.validateAuthResponse(as, clientOf('P1'), body, formPost.state!);
    assert.match(fromBody.get('code')!, /^ACe\./);

    const errorPost = await plainGet(authorizeUrl(p1Params({ response_mode: 'form_post', scope: 'nope' })));
    assert.equal(errorPost.status, 200);
    const errorForm = new URLSearchParams(parseForms(await errorPost.text())[0]!.fields);
    assert.equal(errorForm.get('error'), 'invalid_scope');
    assert.equal(errorForm.get('iss'), as.issuer);
  });

  test('A21: response_mode=query with a token response type is rejected', async () => {
    const params = p1Params({ response_type: 'code token', response_mode: 'query' });
    const res = await plainGet(authorizeUrl(params));
    const got = expectRedirectError(res, 'P1', 'invalid_request', params.state!);
    assert.match(got.get('error_description')!, /response_mode=query/);
    assert.equal(new URL(res.headers.get('location')!).search, '');
  });

  test('A22: the consent page shows the client, is CSRF-protected and cannot be framed', async () => {
    const browser = await signedIn();
    const res = await browser.get(authorizeUrl(c1Params()));
    assert.equal(res.status, 200);
    for (const [name, value] of [
      ['x-frame-options', 'DENY'],
      ['x-content-type-options', 'nosniff'],
      ['referrer-policy', 'no-referrer'],
      ['cache-control', 'no-store'],
    ]) {
      assert.equal(res.headers.get(name!), value, name);
    }
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const html = await res.text();
    assert.doesNotMatch(html, /<script/);
    for (const text of [
      'App One',
      'dev@app.example',
      'href="https://app.example/"',
      'href="https://app.example/terms"',
      'href="https://app.example/privacy"',
      'List the telegrams you can receive',
      h.user.email,
      `href="${h.origin}/account"`,
    ]) {
      assert.ok(html.includes(text), text);
    }
    const form = parseForms(html).find((f) => f.action.endsWith('/auth/consent'))!;
    assert.ok(form.fields.some(([k, v]) => k === 'csrf' && v.length > 20));
    assert.deepEqual(form.buttons, [
      ['decision', 'approve'],
      ['decision', 'deny'],
    ]);

    // Missing or wrong CSRF token: rejected, no code issued.
    const codesOfC1 = () =>
      h.server.ctx.db.query('SELECT count(*)::int AS n FROM oauth_codes WHERE client_id = $1', [
        h.clients.C1.client.clientId,
      ]);
    const before = await codesOfC1();
    for (const csrf of [null, 'wrong', form.fields.find(([k]) => k === 'csrf')![1].slice(0, -1) + 'x']) {
      const fields = form.fields.filter(([k]) => k !== 'csrf');
      if (csrf !== null) fields.push(['csrf', csrf]);
      const rejected = await browser.post(form.action, [...fields, ['decision', 'approve']]);
      assert.equal(rejected.status, 403);
      assert.equal(rejected.headers.get('location'), null);
    }
    // Another user's session cannot reuse this page's token.
    const other = await signedIn();
    const stolen = await other.post(form.action, [...form.fields, ['decision', 'approve']]);
    assert.equal(stolen.status, 403);
    const afterRows = await codesOfC1();
    assert.deepEqual(afterRows, before);
  });

  test('prompt=none without a session → no_signin; with one → access_denied (consent needed)', async () => {
    const params = p1Params({ prompt: 'none' });
    expectRedirectError(await plainGet(authorizeUrl(params)), 'P1', 'no_signin', params.state!);
    const browser = await signedIn();
    expectRedirectError(await browser.get(authorizeUrl(params)), 'P1', 'access_denied', params.state!);
  });

  test('a malformed query string → 400 page', async () => {
    expectPage400(await plainGet(`${as.authorization_endpoint}?client_id=%FF&state=x`));
  });

  test('the consent decision re-checks the request (a client revoked meanwhile gets nothing)', async () => {
    const browser = await signedIn();
    const html = await consentPage(
      browser,
      authorizeUrl(
        c1Params({ client_id: h.clients.C2.client.clientId, redirect_uri: 'https://two.example/cb' }),
      ),
    );
    await h.server.ctx.db.query('UPDATE oauth_clients SET revoked_at = now() WHERE client_id = $1', [
      h.clients.C2.client.clientId,
    ]);
    expectPage400(await decide(browser, html, 'approve'));
  });

  test('a failure while recording the approval is sent to the client as server_error', async () => {
    const browser = await signedIn();
    const params = p1Params();
    const html = await consentPage(browser, authorizeUrl(params));
    const db = h.server.ctx.db;
    await db.query('ALTER TABLE oauth_grants ADD CONSTRAINT refuse_all CHECK (false) NOT VALID');
    try {
      expectRedirectError(await decide(browser, html, 'approve'), 'P1', 'server_error', params.state!);
    } finally {
      await db.query('ALTER TABLE oauth_grants DROP CONSTRAINT refuse_all');
    }
  });
});
