/**
 * Every console page in Chromium at a phone's size (390×844) and a desktop's (1280×800), in English
 * and Japanese, signed in as an administrator: no horizontal overflow, the header on one line on
 * the desktop and at most 70 px high on the phone (its menu closed); axe-core passing at each size
 * and in each language (the phone in Japanese, the desktop in English: a rule that depends on the
 * size is checked at both, one that depends on the language in both, at half the browser's CPU of
 * all four); screenshots in test-output/screenshots/. Beside it: the phone's menu opened by keyboard, the scope presets of
 * the API key form with and without script, the pointer to the Contracts page of an account without
 * contract, and a training scenario moving the live view's map, marked as training.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { listApiKeys } from '../../src/accounts/api-keys.ts';
import { presetScopes } from '../../src/console/scope-text.ts';
import { offeredScopes } from '../../src/console/scope-field.ts';
import { listEarthquakeEvents } from '../../src/gd/earthquake-store.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { createSubscription } from '../../src/webhooks/subscriptions.ts';
import { assertAccessible, launchChromium, signedInPage } from '../support/chromium.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SHOTS = join('test-output', 'screenshots');
const FIXTURES = join(process.env.NAMAZU_FIXTURES ?? '../shared/fixtures', 'jma-xml');
const QUAKE_FILE = join(FIXTURES, 'jma-official-samples', '32-35_01_03_240613_VXSE53.xml');
const CONTRACTS = ['telegram.earthquake', 'eew.forecast', 'eew.warning'];
const SIZES = [
  { name: 'phone', width: 390, height: 844, checkedIn: 'ja' },
  { name: 'desktop', width: 1280, height: 800, checkedIn: 'en' },
] as const;

let server: TestServer;
let browser: Browser;
let admin: { email: string; password: string; id: number };
let clientPath = '';
let telegramPath = '';
let quakePath = '';
let consentPath = '';
let webhookPath = '';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  server = await startTestServer();
  const a = await server.createAccount({ admin: true, contracts: CONTRACTS });
  admin = { email: a.account.email, password: a.password, id: a.account.id };
  const { client } = await createClient(server.ctx.db, server.ctx.pepper, {
    accountId: a.account.id,
    name: 'Layout Test App',
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    grants: ['authorization_code'],
    scopes: ['telegram.list', 'telegram.data', 'gd.earthquake', 'socket.start'],
  });
  clientPath = `/account/clients/${client.id}`;
  consentPath = `/account/oauth2/v1/auth?${new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1/callback',
    scope: 'telegram.list telegram.data gd.earthquake socket.start',
    state: 'layout',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;
  const { box } = server.app.webhooks;
  const webhook = await createSubscription(
    server.ctx.db,
    box,
    a.account.id,
    {
      url: 'https://hooks.example.test/api/webhooks/1234567890/a-token-long-enough-to-be-shortened',
      classifications: CONTRACTS,
      types: null,
      test: 'no',
      formatMode: 'raw',
      areas: ['13'],
      minIntensity: '3',
      format: 'discord',
      lang: 'ja',
      token: null,
      visibility: null,
      localOnly: false,
      headers: [],
      mention: null,
      mentionOn: 'urgent',
    },
    'hooks.example.test',
  );
  if (!webhook.ok) throw new Error(`no webhook: ${webhook.reason}`);
  webhookPath = `/account/webhooks/${webhook.subscription.id}`;
  // The official sample is a training telegram: ingested as an operational one, a real event.
  const xml = readFileSync(QUAKE_FILE, 'utf8').replace('<Status>訓練</Status>', '<Status>通常</Status>');
  const outcome = await ingestTelegram(server.ctx, Buffer.from(xml), {
    receivedTime: Date.now(),
    fileName: 'VXSE53.xml',
  });
  if (!outcome.ok) throw new Error(`not ingested: ${outcome.reason}`);
  telegramPath = `/console/telegrams/${outcome.stored.serial}`;
  const { items } = await listEarthquakeEvents(server.ctx.db, { limit: 1 });
  quakePath = `/console/earthquakes/${items[0]!.eventId}`;
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const signedIn = (
  who: { email: string; password: string },
  options: { width: number; height: number; lang: 'en' | 'ja'; javaScript?: boolean },
) => signedInPage(browser, server.url, who, options);

/** The header's height, and how far apart the middles of its visible items are (0: one line). */
const headerShape = (page: Page) =>
  page.evaluate<{ height: number; spread: number }>(`(() => {
    const bar = document.querySelector('header.top .bar');
    const tops = [...bar.children].filter((c) => c.offsetParent !== null).map((c) => { const r = c.getBoundingClientRect(); return (r.top + r.bottom) / 2; });
    return {
      height: document.querySelector('header.top').getBoundingClientRect().height,
      spread: Math.max(...tops) - Math.min(...tops),
    };
  })()`);

const overflowOf = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

const shotName = (path: string) =>
  path.replace(/\?.*$/, '').replace(/^\//, '').replace(/[/:]/g, '-') || 'root';

test('every console page fits a phone and a desktop, in both languages; header one line, menu on the phone', async () => {
  const pages = [
    '/account',
    '/account/keys',
    '/account/clients',
    '/account/clients/new',
    clientPath,
    '/account/webhooks',
    '/account/webhooks/new',
    webhookPath,
    '/account/contracts',
    '/account/sessions',
    '/account/password',
    '/console/live',
    telegramPath,
    quakePath,
    '/console/admin',
    '/console/admin/ingest',
    '/console/admin/accounts',
    '/console/admin/invite',
    '/console/admin/scenario',
    consentPath,
  ];
  for (const size of SIZES) {
    for (const lang of ['en', 'ja'] as const) {
      const { context, page } = await signedIn(admin, { ...size, lang });
      try {
        for (const path of pages) {
          await page.goto(server.url + path);
          assert.equal(await page.locator('html').getAttribute('lang'), lang, path);
          const what = `${path} ${size.name} ${lang}`;
          assert.ok((await overflowOf(page)) <= 0, `${what}: ${await overflowOf(page)} px too wide`);
          const shape = await headerShape(page);
          if (size.name === 'desktop')
            assert.ok(shape.spread <= 4, `${what}: header on one line (${shape.spread})`);
          else assert.ok(shape.height <= 70, `${what}: header ${shape.height} px high`);
          if (lang === size.checkedIn) await assertAccessible(page, what);
          await page.screenshot({
            path: join(SHOTS, `layout-${shotName(path)}-${size.name}-${lang}.png`),
            fullPage: true,
          });
        }
      } finally {
        await context.close();
      }
    }
  }
});

test('on a phone the menu opens by keyboard and holds the navigation and the account items', async () => {
  const { context, page } = await signedIn(admin, { ...SIZES[0], lang: 'en' });
  try {
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.equal(await nav.count(), 0, 'the navigation is behind the closed menu');
    await page.locator('details.compact summary').focus();
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'Administration' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1);
    assert.ok((await overflowOf(page)) <= 0, 'the open menu fits the phone');
    await assertAccessible(page, 'phone menu open');
    await page.screenshot({ path: join(SHOTS, 'layout-menu-open-phone-en.png') });
    await nav.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL((u) => u.pathname === '/account/keys');
  } finally {
    await context.close();
  }
});

test('the API key presets tick their scopes, without a script (the server) and with it (in place)', async () => {
  const offered = offeredScopes(true);
  const read = presetScopes('read', offered);
  const ticked = (page: Page) =>
    page.evaluate<string[]>(
      `[...document.querySelectorAll('input[name=scope]:checked')].map((b) => b.value)`,
    );
  const before = (await listApiKeys(server.ctx.db, admin.id, null)).items.length;
  const noScript = await signedIn(admin, { ...SIZES[1], lang: 'en', javaScript: false });
  try {
    await noScript.page.goto(`${server.url}/account/keys`);
    await Promise.all([
      noScript.page.waitForEvent('load'),
      noScript.page.getByRole('button', { name: 'Read telegrams' }).click(),
    ]);
    assert.deepEqual((await ticked(noScript.page)).sort(), [...read].sort());
    assert.equal((await listApiKeys(server.ctx.db, admin.id, null)).items.length, before, 'nothing created');
  } finally {
    await noScript.context.close();
  }
  const { context, page } = await signedIn(admin, { ...SIZES[1], lang: 'ja' });
  try {
    await page.goto(`${server.url}/account/keys`);
    // The scopes are described in Japanese, grouped, the code beside each.
    await page.getByRole('checkbox', { name: '電文の内容の取得 telegram.data' }).waitFor();
    let navigated = false;
    page.on('framenavigated', () => (navigated = true));
    await page.getByRole('button', { name: 'リアルタイム受信' }).click();
    assert.deepEqual((await ticked(page)).sort(), presetScopes('realtime', offered).sort());
    assert.equal(navigated, false, 'ticked in place by the script');
    assert.ok((await ticked(page)).includes('socket.start'));
    assert.ok(!(await ticked(page)).includes('admin.telegram.ingest'), 'no preset grants administration');
    await page.getByRole('button', { name: 'キーを作成' }).click();
    await page.locator('#new-key').waitFor();
    const [key] = (await listApiKeys(server.ctx.db, admin.id, null)).items;
    assert.deepEqual([...key!.scopes].sort(), [...presetScopes('realtime', offered)].sort());
  } finally {
    await context.close();
  }
});

test('an account without contract is pointed to the Contracts page from the dashboard and the live view', async () => {
  const bare = await server.createAccount();
  const who = { email: bare.account.email, password: bare.password };
  const { context, page } = await signedIn(who, { ...SIZES[0], lang: 'ja' });
  try {
    for (const path of ['/account', '/console/live']) {
      await page.goto(server.url + path);
      const pointer = page.locator('#no-contract');
      assert.match(await pointer.innerText(), /契約/);
      assert.equal(await pointer.getByRole('link').getAttribute('href'), '/account/contracts');
    }
    await page.locator('#no-contract').getByRole('link').click();
    await page.waitForURL((u) => u.pathname === '/account/contracts');
  } finally {
    await context.close();
  }
  const { context: c2, page: p2 } = await signedIn(admin, { ...SIZES[1], lang: 'en' });
  try {
    assert.equal(await p2.locator('#no-contract').count(), 0, 'a contracted account sees no pointer');
  } finally {
    await c2.close();
  }
});

test('a training scenario moves the live view map, marked as training; the earthquake list stays as it was', async () => {
  const listed = async () =>
    (await listEarthquakeEvents(server.ctx.db, { limit: 100 })).items.map((e) => e.eventId);
  const listedBefore = await listed();
  const { context, page } = await signedIn(admin, { ...SIZES[1], lang: 'ja' });
  try {
    await page.goto(`${server.url}/console/live`);
    await page
      .locator('#live-status')
      .filter({ hasText: /ライブ/ })
      .waitFor();
    const realEvent = await page.locator('#quake').getAttribute('data-event-id');
    assert.equal(await page.locator('#quake-training').count(), 0, 'a real event is not marked');

    const admin2 = await context.newPage();
    await admin2.goto(`${server.url}/console/admin/scenario`);
    await admin2.locator('#tool-latitude').fill('36.2');
    await admin2.locator('#tool-longitude').fill('140.1');
    await admin2.locator('#tool-depth').fill('50');
    await admin2.locator('#tool-magnitude').fill('6.4');
    await admin2.locator('#tool-speed').fill('1000');
    await admin2.locator('#main form button[type=submit]').click();
    const result = await admin2.locator('#tool-result').innerText();
    const eventId = /\d{14}/.exec(result)![0];

    // The open live view follows: its earthquake section becomes the training event, marked.
    const section = page.locator(`#quake[data-event-id="${eventId}"][data-training="true"]`);
    await section.waitFor({ timeout: 30_000 });
    assert.notEqual(eventId, realEvent);
    assert.match(await section.locator('#quake-training').innerText(), /訓練/);
    await section.locator('#quake-maxint').filter({ hasText: /\S/ }).waitFor();
    assert.match(await section.locator('#quake-hypocentre').innerText(), /36\.2, 140\.1/);
    await page.screenshot({ path: join(SHOTS, 'layout-live-training-desktop-ja.png'), fullPage: true });
    // A page opened now shows it too, in English marked TRAINING.
    await page.goto(`${server.url}/account/lang?to=en&return_to=%2Fconsole%2Flive`);
    assert.equal(await page.locator('#quake').getAttribute('data-event-id'), eventId);
    assert.match(await page.locator('#quake-training').innerText(), /TRAINING/);
    await assertAccessible(page, 'live view with a training event');
    assert.deepEqual(await listed(), listedBefore, 'training telegrams stay out of the earthquake list');
  } finally {
    await context.close();
  }
});
