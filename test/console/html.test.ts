import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, markup, safeHref } from '../../src/console/html.ts';
import { csrfToken, csrfValid } from '../../src/console/signin/csrf.ts';
import { renderConsentPage } from '../../src/console/authorization/consent-page.ts';

test('interpolated values are escaped; nested html is not double-escaped', () => {
  assert.equal(escapeHtml(`<a href="x">'&\``), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#96;');
  const inner = markup`<b>${'<i>'}</b>`;
  assert.equal(markup`<p>${inner}${['<', markup`<br>`]}</p>`.value, '<p><b>&lt;i&gt;</b>&lt;<br></p>');
});

test('only http(s) URLs become links', () => {
  assert.equal(safeHref('https://app.example/terms'), 'https://app.example/terms');
  assert.equal(safeHref('javascript:alert(1)'), null);
  assert.equal(safeHref('data:text/html,x'), null);
  assert.equal(safeHref('not a url'), null);
});

test('the consent page escapes registered attributes and never links unsafe URLs', () => {
  const page = renderConsentPage({
    action: '/consent',
    csrf: 't',
    request: 'a=1&b=<2>',
    client: {
      id: 1,
      clientId: 'CId.x',
      accountId: 1,
      name: '<img src=x onerror=alert(1)>',
      type: 'public',
      redirectUris: [],
      grants: ['authorization_code'],
      scopes: [],
      contact: 'dev@app.example',
      appUrl: 'javascript:alert(1)',
      termsUrl: 'https://app.example/terms',
      privacyUrl: null,
      refreshRotation: 'default',
    },
    scopes: ['telegram.list'],
    accountEmail: 'user@example.com',
    signoutAction: '/signout',
    signoutReturnTo: '/account/oauth2/v1/auth?a=1',
    accountUrl: 'https://auth.example/account',
  });
  assert.ok(!page.includes('<img'));
  assert.ok(!page.includes('href="javascript:'));
  assert.ok(page.includes('<a href="https://app.example/terms"'));
  assert.ok(page.includes('List the telegrams you can receive'));
  assert.ok(page.includes('value="a=1&amp;b=&lt;2&gt;"'));
});

test('CSRF tokens are bound to their session and checked strictly', () => {
  const pepper = Buffer.alloc(32, 7);
  const token = csrfToken(pepper, 'session-a');
  assert.equal(csrfValid(pepper, 'session-a', token), true);
  assert.equal(csrfValid(pepper, 'session-b', token), false);
  assert.equal(csrfValid(Buffer.alloc(32, 8), 'session-a', token), false);
  assert.equal(csrfValid(pepper, 'session-a', undefined), false);
  assert.equal(csrfValid(pepper, 'session-a', [token, token]), false);
  assert.equal(csrfValid(pepper, 'session-a', token.slice(1)), false);
});
