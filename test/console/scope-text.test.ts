/**
 * Scopes in the console's words (docs/console.md "Credentials", "Language"): every known scope is
 * described in Japanese, the Japanese consent page lists them in Japanese, the presets never grant
 * administration, and the API key form's preset posted without script ticks its boxes and creates
 * nothing (an unknown preset is refused beside the scopes).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { renderConsentPage } from '../../src/console/authorization/consent-page.ts';
import { offeredScopes } from '../../src/console/scope-field.ts';
import {
  hasJapaneseDescription,
  presetScopes,
  scopeDescription,
  scopePresets,
} from '../../src/console/scope-text.ts';
import type { OAuthClient } from '../../src/issuer/clients.ts';
import { knownScopes, scopeDescriptions } from '../../src/scopes.ts';
import { type Browser, signedInBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
let accountId: number;

before(async () => {
  server = await startTestServer({ listen: false });
  const { account, password } = await server.createAccount();
  accountId = account.id;
  browser = await signedInBrowser(server.url, account.email, password);
});
after(() => server.close());

test('every known scope has Japanese words of its own, and English ones from scopes.ts', () => {
  assert.deepEqual(
    knownScopes.filter((s) => !hasJapaneseDescription(s)),
    [],
    'scopes without a Japanese description in src/console/scope-text.ts',
  );
  for (const s of knownScopes) {
    assert.equal(scopeDescription(s, 'en'), scopeDescriptions[s]);
    assert.match(scopeDescription(s, 'ja'), /[\u3040-\u30ff\u4e00-\u9fff]/, `${s} in Japanese`);
  }
});

test('the Japanese consent page lists the permissions in Japanese, each with its code', () => {
  const client = {
    name: 'アプリ',
    contact: null,
    appUrl: null,
    termsUrl: null,
    privacyUrl: null,
  } as OAuthClient;
  const html = renderConsentPage({
    lang: 'ja',
    action: '/consent',
    csrf: 'c',
    request: 'r',
    client,
    scopes: ['telegram.data', 'socket.start'],
    accountEmail: 'a@example.test',
    signoutAction: '/signout',
    signoutReturnTo: '/',
    accountUrl: '/account',
  });
  assert.match(html, /<li>電文の内容の取得 <span class="muted">\(telegram\.data\)<\/span><\/li>/);
  assert.match(
    html,
    /<li>リアルタイム受信のWebSocket接続の開始 <span class="muted">\(socket\.start\)<\/span><\/li>/,
  );
  assert.doesNotMatch(html, new RegExp(scopeDescriptions['telegram.data']!));
});

test('no preset grants an administrator scope; each is a non-empty subset of what is offered', () => {
  const offered = offeredScopes(true);
  assert.ok(offered.includes('admin.telegram.ingest'));
  for (const p of scopePresets) {
    const scopes = presetScopes(p, offered);
    assert.ok(scopes.length > 0, p);
    assert.ok(
      scopes.every((s) => offered.includes(s) && !s.startsWith('admin.')),
      p,
    );
  }
  assert.deepEqual(presetScopes('everything', offered), offeredScopes(false));
  assert.ok(presetScopes('read', offered).includes('gd.earthquake'));
  assert.ok(!presetScopes('read', offered).includes('socket.start'));
  assert.ok(presetScopes('realtime', offered).includes('socket.start'));
  assert.ok(!presetScopes('realtime', offered).includes('telegram.data'));
});

const keyCount = async () =>
  (
    await server.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1',
      [accountId],
    )
  )[0]!.n;

test('a preset posted without script comes back ticked and creates nothing; an unknown one is refused', async () => {
  const form = await (await browser.get(`${server.url}/account/keys`)).text();
  const res = await browser.submit(form, '/account/keys', [
    ['preset', 'read'],
    ['scope', 'socket.start'],
  ]);
  assert.equal(res.status, 200);
  const html = await res.text();
  const ticked = [...html.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]);
  assert.deepEqual(ticked.sort(), presetScopes('read', offeredScopes(false)).sort());
  assert.equal(await keyCount(), 0);

  const bad = await browser.submit(form, '/account/keys', [['preset', 'all-of-it']]);
  assert.equal(bad.status, 400);
  assert.match(
    await bad.text(),
    /<p class="field-error" id="scopes-error">Choose one of the presets offered\.<\/p>/,
  );
  assert.equal(await keyCount(), 0);
});
