import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderConsentPage } from '../../../src/console/authorization/consent-page.ts';
import { escapeHtml } from '../../../src/console/html.ts';
import type { OAuthClient } from '../../../src/issuer/clients.ts';

const client = (name: string): OAuthClient => ({
  id: 1,
  clientId: 'CId.x',
  accountId: 2,
  name,
  type: 'public',
  redirectUris: ['https://app.example/cb'],
  grants: ['authorization_code'],
  scopes: ['telegram.list'],
  contact: null,
  appUrl: null,
  termsUrl: null,
  privacyUrl: null,
  refreshRotation: 'default',
});

test('consent page: the client name is shown as registered, `$` patterns included', () => {
  // String.replace reads `$&`, `$'` and `` $` `` in a replacement string as patterns: a client
  // registered under such a name must not have its words rewritten on the page deciding its access.
  const name = "App $& $' $` $$";
  for (const lang of ['en', 'ja'] as const) {
    const html = renderConsentPage({
      lang,
      action: '/account/oauth2/v1/auth/consent',
      csrf: 'c',
      request: 'client_id=CId.x',
      client: client(name),
      scopes: ['telegram.list'],
      accountEmail: 'user@example.com',
      signoutAction: '/account/signout',
      signoutReturnTo: '/account/oauth2/v1/auth',
      accountUrl: '/account',
    });
    const shown = escapeHtml(name);
    const title = /<title>(.*) · Namazu<\/title>/.exec(html)![1]!;
    assert.equal(title.split(shown).length, 2, `${lang} title names the client once, as is: ${title}`);
    assert.ok(!title.includes('{name}'), title);
    const asks = /<p>([^<]*)<\/p>\s*<ul>/.exec(html)![1]!;
    assert.equal(asks.split(shown).length, 2, `${lang} request line names the client once, as is: ${asks}`);
    assert.ok(!asks.includes('{name}'), asks);
  }
});
