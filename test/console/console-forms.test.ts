/**
 * The console's forms over plain HTTP (docs/console.md): every refusal shows its message beside
 * the field and changes nothing, a form without its CSRF token changes nothing, secrets are shown
 * once, sign-up by invitation, the password change, the root path and the language switch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPassword } from '../../src/accounts/accounts.ts';
import { createInvitation } from '../../src/accounts/invitations.ts';
import { verifyClientSecret } from '../../src/issuer/clients.ts';
import { ManualClock } from '../../src/clock.ts';
import type { SqlParam } from '../../src/db/types.ts';
import { Browser, parseForms, signedInBrowser } from '../support/browser.ts';
import { testFetch } from '../support/fetch.ts';
import { basic } from '../support/oauth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const clock = new ManualClock();
let user: { id: number; email: string; password: string };
let browser: Browser;

before(async () => {
  server = await startTestServer({ clock, listen: false, config: { signup: 'invitation' } });
  const created = await server.createAccount();
  user = { id: created.account.id, email: created.account.email, password: created.password };
  browser = await signedInBrowser(server.url, user.email, user.password);
});
after(() => server.close());

/** A client_credentials request to the token endpoint, authenticated with Basic; its JSON answer. */
async function tokenRequest(clientId: string, secret: string): Promise<{ error?: string }> {
  const res = await testFetch(`${server.url}/account/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      authorization: basic(clientId, secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return (await res.json()) as { error?: string };
}

const count = async (sql: string, params: SqlParam[] = []) =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;

/** The text of the field error tied to input `id`, or null. */
function fieldErrorOf(html: string, id: string): string | null {
  const m = new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html);
  return m ? m[1]! : null;
}

async function page(path: string, b = browser) {
  const res = await b.get(server.url + path);
  assert.equal(res.status, 200, path);
  return res.text();
}

describe('root path and language', () => {
  test('a browser goes to sign-in, or to the dashboard when signed in; a JSON client gets the reference', async () => {
    const anon = await testFetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    assert.equal(anon.status, 303);
    assert.equal(anon.headers.get('location'), `${server.url}/account/signin`);
    const signed = await browser.get(`${server.url}/`);
    // Browser sends no Accept header: it is a program, answered with JSON.
    assert.equal(signed.status, 200);
    const json = (await signed.json()) as Record<string, string>;
    assert.equal(json.reference, `${server.url}/reference`);
    const res = await testFetch(`${server.url}/`, {
      redirect: 'manual',
      headers: {
        accept: 'text/html,application/xhtml+xml',
        cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `${server.url}/account`);
  });

  test('the language switch sets the lang cookie and returns to the page, now in Japanese', async () => {
    const b = await signedInBrowser(server.url, user.email, user.password);
    assert.match(await page('/account/keys', b), /<html lang="en">/);
    const res = await b.get(`${server.url}/account/lang?to=ja&return_to=%2Faccount%2Fkeys`);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `${server.url}/account/keys`);
    assert.equal(b.cookies.get('lang'), 'ja');
    const ja = await page('/account/keys', b);
    assert.match(ja, /<html lang="ja">/);
    assert.ok(ja.includes('APIキーを作成'));
    // An unknown language or a foreign return address changes nothing but leads home.
    const odd = await b.get(`${server.url}/account/lang?to=xx&return_to=https%3A%2F%2Fevil.example%2F`);
    assert.equal(odd.headers.get('location'), `${server.url}/account`);
    assert.equal(b.cookies.get('lang'), 'ja');
  });

  test('pages load only the stylesheet and script of their own origin under a strict CSP', async () => {
    const res = await browser.get(`${server.url}/account`);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /style-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const html = await res.text();
    assert.doesNotMatch(html, /<style|style="/);
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1]!;
    const css = await testFetch(server.url + href);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type')!, /text\/css/);
    assert.match(css.headers.get('cache-control')!, /immutable/);
  });
});

describe('API keys', () => {
  test('no scope, an unknown scope or a missing CSRF token: refused beside the field, nothing created', async () => {
    const html = await page('/account/keys');
    const before = await count('api_keys WHERE account_id = $1', [user.id]);
    const none = await browser.submit(html, '/account/keys', []);
    assert.equal(none.status, 400);
    assert.equal(fieldErrorOf(await none.text(), 'scopes'), 'Choose at least one scope.');
    const unknown = await browser.submit(html, '/account/keys', [['scope', 'telegram.everything']]);
    assert.equal(unknown.status, 400);
    assert.equal(fieldErrorOf(await unknown.text(), 'scopes'), 'Choose only scopes from the list.');
    const admin = await browser.submit(html, '/account/keys', [['scope', 'admin.telegram.ingest']]);
    assert.equal(admin.status, 400, 'administrator scopes are not offered to others');
    const noCsrf = await browser.post(`${server.url}/account/keys`, [['scope', 'contract.list']]);
    assert.equal(noCsrf.status, 403);
    assert.equal(await count('api_keys WHERE account_id = $1', [user.id]), before);
  });

  test('create: the value is shown once and works; revoke: it stops at once', async () => {
    const html = await page('/account/keys');
    const res = await browser.submit(html, '/account/keys', [['scope', 'contract.list']]);
    assert.equal(res.status, 201);
    const body = await res.text();
    const key = /<code id="new-key">(AKe\.[A-Za-z0-9_-]+)<\/code>/.exec(body)![1]!;
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const use = () =>
      testFetch(`${server.url}/v2/contract`, {
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      });
    assert.equal((await use()).status, 200);
    // The list shows the key's scopes and a last-use time, never its value.
    const list = await page('/account/keys');
    assert.ok(!list.includes(key));
    const row = /<tr>\s*<td data-label="ID">#(\d+)<\/td>[\s\S]*?<\/tr>/.exec(list)!;
    assert.ok(row[0].includes('contract.list'));
    assert.doesNotMatch(row[0], /never/);
    const revoke = await browser.submit(list, `/account/keys/${row[1]}/revoke`);
    assert.equal(revoke.status, 303);
    assert.equal((await use()).status, 401);
    // Revoking again, or another account's key: not found.
    assert.equal((await browser.submit(list, `/account/keys/${row[1]}/revoke`)).status, 404);
  });
});

describe('OAuth clients', () => {
  const valid: [string, string][] = [
    ['name', 'Quake Board'],
    ['type', 'confidential'],
    ['redirectUris', 'https://board.example/cb\nhttp://127.0.0.1/cb'],
    ['grant', 'authorization_code'],
    ['grant', 'refresh_token'],
    ['scope', 'telegram.list'],
    ['scope', 'contract.list'],
    ['contact', 'dev@board.example'],
    ['appUrl', 'https://board.example/'],
    ['termsUrl', 'https://board.example/terms'],
    ['privacyUrl', 'https://board.example/privacy'],
  ];
  const replace = (name: string, ...values: string[]): [string, string][] => [
    ...valid.filter(([k]) => k !== name),
    ...values.map((v): [string, string] => [name, v]),
  ];

  const refusals: [string, [string, string][], string, RegExp][] = [
    ['empty name', replace('name'), 'name', /^Check this field: Application name must be 1 to 100/],
    ['too long name', replace('name', 'x'.repeat(101)), 'name', /must be 1 to 100/],
    ['wrong scheme', replace('redirectUris', 'ftp://board.example/cb'), 'redirectUris', /must use https/],
    [
      'http off loopback',
      replace('redirectUris', 'http://board.example/cb'),
      'redirectUris',
      /http only with localhost/,
    ],
    [
      'fragment',
      replace('redirectUris', 'https://board.example/cb#top'),
      'redirectUris',
      /must not contain a fragment/,
    ],
    ['no redirect URI', replace('redirectUris'), 'redirectUris', /needs at least one/],
    [
      'unknown scope',
      replace('scope', 'telegram.everything'),
      'scopes',
      /unknown scope\(s\): telegram\.everything/,
    ],
    ['no scope', replace('scope'), 'scopes', /at least one scope/],
    ['administrator scope', replace('scope', 'admin.telegram.ingest'), 'scopes', /not available/],
    ['no flow', replace('grant'), 'grants', /at least one/],
    [
      'public with client credentials',
      [...replace('type', 'public'), ['grant', 'client_credentials']],
      'grants',
      /public clients cannot/,
    ],
    ['unknown type', replace('type', 'secret'), 'type', /confidential or public/],
    ['terms not http', replace('termsUrl', 'javascript:alert(1)'), 'termsUrl', /must be an http\(s\) URL/],
    ['contact too long', replace('contact', 'c'.repeat(255)), 'contact', /1 to 254/],
    [
      'unknown refresh rotation',
      [...valid, ['refreshRotation', 'always']],
      'refreshRotation',
      /Refresh token rotation must be one of default, on, off/,
    ],
    [
      'refresh rotation given twice',
      [...valid, ['refreshRotation', 'on'], ['refreshRotation', 'off']],
      'refreshRotation',
      /must be one of default, on, off/,
    ],
  ];

  test('every broken rule is shown beside its field, the values are kept, and nothing is registered', async () => {
    const html = await page('/account/clients/new');
    const before = await count('oauth_clients WHERE account_id = $1', [user.id]);
    for (const [what, fields, field, message] of refusals) {
      const res = await browser.submit(html, '/account/clients', fields);
      assert.equal(res.status, 400, what);
      const body = await res.text();
      assert.match(fieldErrorOf(body, field) ?? '', message, what);
      assert.ok(
        body.includes('aria-invalid="true"') || body.includes(`aria-describedby="${field}-error"`),
        what,
      );
    }
    // A field with a hint is described by the hint and its error, in one attribute.
    const contact = await (
      await browser.submit(html, '/account/clients', replace('contact', 'c'.repeat(255)))
    ).text();
    const contactInput = /<input id="contact"[^>]*>/.exec(contact)?.[0] ?? '';
    assert.match(contactInput, /aria-describedby="contact-hint contact-error"/);
    assert.equal(contactInput.match(/aria-describedby=/g)?.length, 1, contactInput);
    // Several broken rules at once: each is shown beside its own field.
    const several = await browser.submit(html, '/account/clients', [
      ...valid.filter(([k]) => !['name', 'scope', 'termsUrl'].includes(k)),
      ['name', ''],
      ['termsUrl', 'javascript:alert(1)'],
    ]);
    assert.equal(several.status, 400);
    const severalBody = await several.text();
    assert.match(fieldErrorOf(severalBody, 'name') ?? '', /must be 1 to 100/);
    assert.match(fieldErrorOf(severalBody, 'scopes') ?? '', /at least one scope/);
    assert.match(fieldErrorOf(severalBody, 'termsUrl') ?? '', /must be an http\(s\) URL/);
    assert.equal(fieldErrorOf(severalBody, 'redirectUris'), null);
    const noCsrf = await browser.post(`${server.url}/account/clients`, valid);
    assert.equal(noCsrf.status, 403);
    assert.equal(await count('oauth_clients WHERE account_id = $1', [user.id]), before);
  });

  test('register a confidential client: id and secret shown once; rotate, edit (same rules), delete', async () => {
    const html = await page('/account/clients/new');
    const res = await browser.submit(html, '/account/clients', valid);
    assert.equal(res.status, 201);
    const body = await res.text();
    const clientId = /<code id="client-id">(CId\.[^<]+)<\/code>/.exec(body)![1]!;
    const secret = /<code id="new-secret">(CSt\.[^<]+)<\/code>/.exec(body)![1]!;
    const { db, pepper } = server.ctx;
    assert.equal(await verifyClientSecret(db, pepper, clientId, secret), true);
    const row = (
      await db.query<{ id: number; contact: string; terms_url: string; redirect_uris: string[] }>(
        'SELECT * FROM oauth_clients WHERE client_id = $1',
        [clientId],
      )
    )[0]!;
    assert.deepEqual(row.redirect_uris, ['https://board.example/cb', 'http://127.0.0.1/cb']);
    assert.equal(row.contact, 'dev@board.example');

    const view = await page(`/account/clients/${row.id}`);
    assert.ok(!view.includes(secret), 'the secret is never shown again');
    // The token endpoint authenticates the client (and keeps it a moment): the grant is not its.
    const asClient = (s: string) => tokenRequest(clientId, s);
    assert.equal((await asClient(secret)).error, 'unauthorized_client');
    const rotated = await browser.submit(view, `/account/clients/${row.id}/secret`);
    assert.equal(rotated.status, 200);
    const secret2 = /<code id="new-secret">(CSt\.[^<]+)<\/code>/.exec(await rotated.text())![1]!;
    assert.equal(await verifyClientSecret(db, pepper, clientId, secret), false);
    assert.equal(await verifyClientSecret(db, pepper, clientId, secret2), true);
    // The old secret stops at once at the token endpoint too; the new one works there at once.
    assert.equal((await asClient(secret)).error, 'invalid_client');
    assert.equal((await asClient(secret2)).error, 'unauthorized_client');

    const edit = parseForms(view).find((f) => f.action.endsWith(`/account/clients/${row.id}`))!;
    const bad = await browser.post(edit.action, [
      ...edit.fields,
      ...replace('redirectUris', 'https://board.example/cb#x'),
    ]);
    assert.equal(bad.status, 400);
    assert.match(fieldErrorOf(await bad.text(), 'redirectUris')!, /fragment/);
    const unchanged = (
      await db.query<{ redirect_uris: string[] }>('SELECT redirect_uris FROM oauth_clients WHERE id = $1', [
        row.id,
      ])
    )[0]!;
    assert.deepEqual(unchanged.redirect_uris, row.redirect_uris);
    const good = await browser.post(edit.action, [...edit.fields, ...replace('name', 'Quake Board 2')]);
    assert.equal(good.status, 303);
    assert.ok((await page(`/account/clients/${row.id}`)).includes('Quake Board 2'));
    assert.equal((await browser.post(edit.action, replace('name', 'No token'))).status, 403);

    const del = await browser.submit(view, `/account/clients/${row.id}/delete`);
    assert.equal(del.status, 303);
    assert.equal(await verifyClientSecret(db, pepper, clientId, secret2), false);
    assert.equal((await asClient(secret2)).error, 'invalid_client');
    assert.equal((await browser.get(`${server.url}/account/clients/${row.id}`)).status, 404);
  });

  test('refresh token rotation: chosen at registration, shown on the page, changed by an edit', async () => {
    const rotationOf = async (id: string) =>
      (
        await server.ctx.db.query<{ refresh_rotation: string }>(
          'SELECT refresh_rotation FROM oauth_clients WHERE id = $1',
          [Number(id)],
        )
      )[0]!.refresh_rotation;
    const html = await page('/account/clients/new');
    assert.match(
      html,
      /<input type="radio" id="refreshRotation-default" name="refreshRotation" value="default" checked>/,
    );
    const res = await browser.submit(html, '/account/clients', [
      ...replace('type', 'public'),
      ['refreshRotation', 'on'],
    ]);
    assert.equal(res.status, 201);
    const body = await res.text();
    const id = /\/account\/clients\/(\d+)\/delete/.exec(body)![1]!;
    assert.equal(await rotationOf(id), 'on');
    assert.match(body, /<dd id="refresh-rotation">on<\/dd>/);
    assert.match(body, /value="on" checked>/);

    const edit = parseForms(body).find((f) => f.action.endsWith(`/account/clients/${id}`))!;
    const saved = await browser.post(edit.action, [...edit.fields, ...valid, ['refreshRotation', 'default']]);
    assert.equal(saved.status, 303);
    assert.equal(await rotationOf(id), 'default');
    // The server's default here is off: the page says so.
    assert.match(
      await page(`/account/clients/${id}`),
      /<dd id="refresh-rotation">off \(Server default\)<\/dd>/,
    );
  });

  test("another account's client is not found, and cannot be changed", async () => {
    const other = await server.createAccount();
    const b = await signedInBrowser(server.url, other.account.email, other.password);
    const html = await page('/account/clients/new', b);
    const res = await b.submit(html, '/account/clients', replace('type', 'public'));
    assert.equal(res.status, 201);
    const id = /\/account\/clients\/(\d+)\/delete/.exec(await res.text())![1]!;
    assert.equal((await browser.get(`${server.url}/account/clients/${id}`)).status, 404);
    const mine = await page('/account/keys');
    const csrf = parseForms(mine)[0]!.fields.find(([k]) => k === 'csrf')![1];
    assert.equal(
      (await browser.post(`${server.url}/account/clients/${id}/delete`, [['csrf', csrf]])).status,
      404,
    );
    assert.equal(await count('oauth_clients WHERE id = $1 AND revoked_at IS NULL', [Number(id)]), 1);
  });
});

describe('contracts', () => {
  test('apply and cancel change the connection limit; an unknown plan or no token changes nothing', async () => {
    const html = await page('/account/contracts');
    assert.match(html, /id="connection-limit" class="figure">0</);
    for (const plan of ['telegram.earthquake', 'websocket.plus2']) {
      const form = parseForms(html).find((f) => f.fields.some(([k, v]) => k === 'plan' && v === plan))!;
      assert.equal((await browser.post(form.action, [...form.fields, ['action', 'apply']])).status, 303);
    }
    let now = await page('/account/contracts');
    assert.match(now, /id="connection-limit" class="figure">3</);
    const form = parseForms(now).find((f) =>
      f.fields.some(([k, v]) => k === 'plan' && v === 'websocket.plus2'),
    )!;
    assert.equal((await browser.post(form.action, [...form.fields, ['action', 'cancel']])).status, 303);
    now = await page('/account/contracts');
    assert.match(now, /id="connection-limit" class="figure">1</);
    const csrf = form.fields.find(([k]) => k === 'csrf')!;
    assert.equal(
      (await browser.post(form.action, [csrf, ['plan', 'telegram.nothing'], ['action', 'apply']])).status,
      400,
    );
    assert.equal(
      (
        await browser.post(form.action, [
          ['plan', 'telegram.volcano'],
          ['action', 'apply'],
        ])
      ).status,
      403,
    );
    assert.match(await page('/account/contracts'), /id="connection-limit" class="figure">1</);
  });
});

describe('sign-up by invitation', () => {
  test('without an invitation there is no form, and a posted sign-up creates nothing', async () => {
    // With an administrator to ask (without one, the page says how to create the first one:
    // test/cli/first-administrator.test.ts).
    await server.createAccount({ admin: true });
    const b = new Browser();
    const html = await page('/account/signup', b);
    assert.ok(html.includes('by invitation only'));
    assert.equal(parseForms(html).filter((f) => f.action.endsWith('/account/signup')).length, 0);
    const signin = await page('/account/signin', b);
    const csrf = parseForms(signin)[0]!.fields.find(([k]) => k === 'csrf')!;
    const res = await b.post(`${server.url}/account/signup`, [
      csrf,
      ['email', 'nobody@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(res.status, 403);
    assert.equal(await count('accounts WHERE email = $1', ['nobody@example.test']), 0);
  });

  test('an invitation admits one sign-up; bad fields are refused beside them; used or expired tokens fail', async () => {
    const { token } = await createInvitation(server.ctx.db, server.ctx.pepper, { now: clock.now() });
    const b = new Browser();
    const html = await page(`/account/signup?invitation=${encodeURIComponent(token)}`, b);
    for (const [fields, field] of [
      [
        [
          ['email', 'not-an-address'],
          ['password', 'long enough password'],
        ],
        'email',
      ],
      [
        [
          ['email', 'new@example.test'],
          ['password', 'short'],
        ],
        'password',
      ],
      [
        [
          ['email', 'new@example.test'],
          ['password', 'long enough password'],
          ['name', 'n'.repeat(101)],
        ],
        'name',
      ],
      [[['password', 'long enough password']], 'email'],
    ] as [[string, string][], string][]) {
      const res = await b.submit(html, '/account/signup', fields);
      assert.equal(res.status, 400);
      assert.ok(fieldErrorOf(await res.text(), field), field);
    }
    const noCsrf = await b.post(`${server.url}/account/signup`, [
      ['invitation', token],
      ['email', 'new@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(noCsrf.status, 403);
    assert.equal(await count('accounts WHERE email = $1', ['new@example.test']), 0);

    const ok = await b.submit(html, '/account/signup', [
      ['email', 'new@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), `${server.url}/account`);
    assert.equal((await b.get(`${server.url}/account`)).status, 200);
    assert.ok(await checkPassword(server.ctx.db, 'new@example.test', 'long enough password'));

    const again = await new Browser().get(
      `${server.url}/account/signup?invitation=${encodeURIComponent(token)}`,
    );
    assert.equal(again.status, 410);
    // The used token, posted with a valid form of a fresh browser.
    const c = new Browser();
    const csrf = parseForms(await page('/account/signin', c))[0]!.fields.find(([k]) => k === 'csrf')!;
    const reuse = await c.post(`${server.url}/account/signup`, [
      csrf,
      ['invitation', token],
      ['email', 'other@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(reuse.status, 410);
    assert.equal(await count('accounts WHERE email = $1', ['other@example.test']), 0);

    const old = await createInvitation(server.ctx.db, server.ctx.pepper, {
      now: clock.now() - 8 * 86_400_000,
    });
    assert.equal(
      (await new Browser().get(`${server.url}/account/signup?invitation=${encodeURIComponent(old.token)}`))
        .status,
      410,
    );
    const stored = await server.ctx.db.query<{ digest: string }>('SELECT digest FROM invitations');
    assert.ok(
      stored.every((r) => !r.digest.includes(token.slice(4))),
      'tokens are stored as digests',
    );
  });

  test('an invitation made out to an address admits only that address', async () => {
    const { token } = await createInvitation(server.ctx.db, server.ctx.pepper, {
      now: clock.now(),
      email: 'Named@Example.test',
    });
    const b = new Browser();
    const html = await page(`/account/signup?invitation=${encodeURIComponent(token)}`, b);
    const wrong = await b.submit(html, '/account/signup', [
      ['email', 'someone@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(wrong.status, 400);
    assert.match(fieldErrorOf(await wrong.text(), 'email')!, /another e-mail address/);
    const right = await b.submit(html, '/account/signup', [
      ['email', 'named@example.test'],
      ['password', 'long enough password'],
    ]);
    assert.equal(right.status, 303);
  });
});

describe('password change', () => {
  test('needs the current password; ends the other sessions of the account but this one', async () => {
    const { account, password } = await server.createAccount();
    const here = await signedInBrowser(server.url, account.email, password);
    const elsewhere = await signedInBrowser(server.url, account.email, password);
    const html = await page('/account/password', here);
    const wrong = await here.submit(html, '/account/password', [
      ['current', 'not it'],
      ['next', 'a brand new password'],
    ]);
    assert.equal(wrong.status, 400);
    assert.match(fieldErrorOf(await wrong.text(), 'current')!, /wrong/);
    const short = await here.submit(html, '/account/password', [
      ['current', password],
      ['next', 'short'],
    ]);
    assert.equal(short.status, 400);
    assert.ok(fieldErrorOf(await short.text(), 'next'));
    assert.equal(
      (
        await here.post(`${server.url}/account/password`, [
          ['current', password],
          ['next', 'a brand new password'],
        ])
      ).status,
      403,
    );
    assert.ok(await checkPassword(server.ctx.db, account.email, password), 'unchanged so far');
    assert.equal((await elsewhere.get(`${server.url}/account`)).status, 200);

    const ok = await here.submit(html, '/account/password', [
      ['current', password],
      ['next', 'a brand new password'],
    ]);
    assert.equal(ok.status, 303);
    assert.equal((await here.get(`${server.url}/account`)).status, 200);
    assert.equal((await elsewhere.get(`${server.url}/account`)).status, 303);
    assert.equal(await checkPassword(server.ctx.db, account.email, password), null);
    assert.ok(await checkPassword(server.ctx.db, account.email, 'a brand new password'));
  });
});

describe('password change limits', () => {
  test('wrong current passwords count against the sign-in limits: then even the right one waits', async () => {
    const { account, password } = await server.createAccount();
    const b = await signedInBrowser(server.url, account.email, password);
    const html = await page('/account/password', b);
    for (let i = 0; i < 10; i++) {
      const wrong = await b.submit(html, '/account/password', [
        ['current', `guess ${i}`],
        ['next', 'a brand new password'],
      ]);
      assert.equal(wrong.status, 400, `guess ${i + 1}`);
    }
    const right = await b.submit(html, '/account/password', [
      ['current', password],
      ['next', 'a brand new password'],
    ]);
    assert.equal(right.status, 429);
    assert.ok(Number(right.headers.get('retry-after')) > 0);
    assert.match(fieldErrorOf(await right.text(), 'current')!, /Too many attempts/);
    assert.ok(await checkPassword(server.ctx.db, account.email, password), 'unchanged');
  });
});

describe('open sign-up', () => {
  test('anyone signs up from the sign-in page; bad fields are refused and create nothing', async () => {
    const open = await startTestServer({ listen: false, config: { signup: 'open' } });
    try {
      const b = new Browser();
      const signin = await (await b.get(`${open.url}/account/signin`)).text();
      assert.ok(signin.includes('href="/account/signup"'));
      const html = await (await b.get(`${open.url}/account/signup`)).text();
      const bad = await b.submit(html, '/account/signup', [
        ['email', 'a@b@c'],
        ['password', 'long enough password'],
      ]);
      assert.equal(bad.status, 400);
      assert.ok(fieldErrorOf(await bad.text(), 'email'));
      const ok = await b.submit(html, '/account/signup', [
        ['email', 'Open@Example.test'],
        ['password', 'long enough password'],
        ['name', 'Open'],
      ]);
      assert.equal(ok.status, 303);
      assert.equal((await b.get(`${open.url}/account`)).status, 200);
      // The same address again (in another form) is one account: refused beside the field.
      const c = new Browser();
      const again = await c.submit(
        await (await c.get(`${open.url}/account/signup`)).text(),
        '/account/signup',
        [
          ['email', 'open@example.TEST'],
          ['password', 'long enough password'],
        ],
      );
      assert.equal(again.status, 400);
      assert.match(fieldErrorOf(await again.text(), 'email')!, /exists already/);
      const rows = await open.ctx.db.query('SELECT 1 FROM accounts WHERE email = $1', ['open@example.test']);
      assert.equal(rows.length, 1);
    } finally {
      await open.close();
    }
  });
});
