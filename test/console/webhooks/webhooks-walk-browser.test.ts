/**
 * The Webhooks area walked in Chromium as a person uses it, keyboard only: each format made (the
 * Misskey one with its token, visibility and local only), the signing secret shown once and not
 * again on a reload, Back or a visit from history (nothing made twice), every bad input refused
 * beside its field and kept (never a token), nothing changed and never a 5xx, the account's cap, a
 * sign-in session that ended while the form was open, safe headers, and error pages in the page's
 * language.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser } from 'playwright-core';
import { listSubscriptions, MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../../../src/webhooks/subscriptions.ts';
import { assertAccessible, launchChromium, signedInPage } from '../../support/chromium.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fillWebhookForm, submit, typeInto } from '../../support/webhook-form.ts';
import { startReceiver, type Receiver } from '../../webhooks/receiver.ts';

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let person: { email: string; password: string; id: number };

before(async () => {
  browser = await launchChromium();
  receiver = await startReceiver();
  server = await startTestServer({ config: { webhookAllowPrivate: true } });
  const a = await server.createAccount({ contracts: ['telegram.earthquake'] });
  person = { email: a.account.email, password: a.password, id: a.account.id };
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

const DESKTOP = { width: 1280, height: 800 };
const subscriptions = () => listSubscriptions(server.ctx.db, person.id);
const clearSubscriptions = () =>
  server.ctx.db.query('DELETE FROM webhook_subscriptions WHERE account_id = $1', [person.id]);

test('each format is made by keyboard, its secret shown once; the list names each without a token', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'ja' });
  const secrets: string[] = [];
  try {
    const made = [
      { format: 'namazu', url: `${receiver.url}/namazu` },
      { format: 'discord', url: `${receiver.url}/discord/123456/${'d'.repeat(68)}` },
      { format: 'slack', url: `${receiver.url}/slack/T000/B000/${'s'.repeat(24)}` },
      { format: 'ntfy', url: `${receiver.url}/ntfy-topic-${'n'.repeat(24)}` },
      { format: 'misskey', url: `${receiver.url}/api/notes/create`, token: '  misskey-token-typed\t' },
    ];
    for (const m of made) {
      await page.goto(`${server.url}/account/webhooks/new`);
      await fillWebhookForm(page, m);
      await submit(page);
      const secret = await page.locator('#new-secret').innerText();
      assert.match(secret, /^whsec_/, m.format);
      secrets.push(secret);
      assert.equal(await page.locator('html').getAttribute('lang'), 'ja');
      await assertAccessible(page, `${m.format} created`);
    }
    const stored = await subscriptions();
    assert.deepEqual(
      stored.map((s) => [s.format, s.url, s.visibility, s.localOnly]),
      made.map((m) => [m.format, m.url, m.format === 'misskey' ? 'public' : null, false]),
    );
    // The token is stored as typed but for the spaces around it (a paste's line break).
    const misskey = stored.find((s) => s.format === 'misskey')!;
    await page.goto(`${server.url}/account/webhooks/${misskey.id}`);
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('button', { hasText: 'テスト送信' }).press('Enter'),
    ]);
    assert.equal(JSON.parse(receiver.received.at(-1)!.body).i, 'misskey-token-typed');

    await page.goto(`${server.url}/account/webhooks`);
    const list = await page.locator('#webhooks').innerText();
    for (const m of made) assert.ok(list.includes(m.format), m.format);
    for (const token of ['d'.repeat(68), 's'.repeat(24), 'n'.repeat(24)])
      assert.ok(!list.includes(token), 'no token-like segment in the list');
    const html = await page.content();
    for (const secret of secrets) assert.ok(!html.includes(secret.slice(6)), 'no secret in the list');
    await assertAccessible(page, 'list of five');
  } finally {
    await context.close();
    await clearSubscriptions();
  }
});

test('the creation answer reloaded, reached by Back or from history makes nothing more and shows no secret', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'en' });
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'namazu' });
    await submit(page);
    const secret = (await page.locator('#new-secret').innerText()).slice(6);
    assert.equal((await subscriptions()).length, 1);

    // A reload sends the form again (Chromium does, once the person confirms): nothing is made twice.
    const reloaded = await page.reload();
    assert.equal((await subscriptions()).length, 1, 'the reload made no second webhook');
    assert.ok(!(await page.content()).includes(secret), 'no secret after a reload');
    assert.ok(reloaded && reloaded.status() < 500);
    assert.match(await page.locator('#form-alert').innerText(), /already/);
    assert.ok((await page.locator('#form-alert a').getAttribute('href'))?.startsWith('/account/webhooks/'));
    await assertAccessible(page, 'resubmitted form');

    await page.goto(`${server.url}/account/webhooks`);
    await page.goBack();
    assert.equal((await subscriptions()).length, 1, 'Back made nothing');
    assert.ok(!(await page.content()).includes(secret), 'no secret after Back');
    await page.goForward();
    assert.ok(!(await page.content()).includes(secret), 'no secret after Forward');
    assert.equal((await subscriptions()).length, 1);

    // A second webhook of the same URL from a fresh form is made as asked.
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'namazu' });
    await submit(page);
    assert.match(await page.locator('#new-secret').innerText(), /^whsec_/);
    assert.equal((await subscriptions()).length, 2);
  } finally {
    await context.close();
    await clearSubscriptions();
  }
});

test('every bad input is refused beside its field in both languages, kept but the token, nothing made, never a 5xx', async () => {
  for (const lang of ['en', 'ja'] as const) {
    const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang });
    try {
      await page.goto(`${server.url}/account/webhooks/new`);
      // Typed by keyboard: Misskey without a token, areas and types that break the rules.
      await fillWebhookForm(page, { url: 'ftp://hooks.example.test/x', format: 'misskey', token: '   ' });
      await typeInto(page, '#areas', 'tokyo,13');
      await typeInto(page, '#types', Array.from({ length: 31 }, (_, i) => `VXSE${i}`).join(' '));
      await submit(page);
      const errors = Object.fromEntries(
        await Promise.all(
          ['url', 'token', 'areas', 'types'].map(
            async (f) => [f, await page.locator(`#${f}-error`).innerText()] as const,
          ),
        ),
      );
      if (lang === 'en') {
        assert.match(errors.url!, /https:\/\//);
        assert.match(errors.token!, /Misskey needs an access token/);
        assert.match(errors.types!, /at most 30/);
      } else {
        assert.match(errors.url!, /https:\/\/ で始まる/);
        assert.match(errors.token!, /アクセストークン/);
        assert.match(errors.areas!, /^この項目を確認してください:/);
      }
      for (const f of ['url', 'token', 'areas', 'types'])
        assert.equal(await page.locator(`#${f}`).getAttribute('aria-invalid'), 'true', f);
      assert.equal(await page.locator('#url').inputValue(), 'ftp://hooks.example.test/x');
      assert.equal(await page.locator('#areas').inputValue(), 'tokyo,13');
      assert.equal(await page.locator('#token').inputValue(), '', 'a token is never sent back');
      assert.equal(await page.locator('#format-misskey').isChecked(), true);
      await assertAccessible(page, `refused form ${lang}`);

      // What a page cannot offer, posted with the page's own CSRF token: refused beside the field.
      const csrf = await page.locator('input[name=csrf]').first().inputValue();
      const ok = {
        csrf,
        url: receiver.url,
        format: 'namazu',
        lang: 'ja',
        classifications: 'telegram.earthquake',
        test: 'no',
        formatMode: 'raw',
      };
      const cases: [Record<string, string>, string][] = [
        [{ format: 'teams' }, 'format'],
        [{ format: 'discord', token: 'tok' }, 'token'],
        [{ format: 'slack', visibility: 'home' }, 'visibility'],
        [{ format: 'ntfy', localOnly: 'true' }, 'localOnly'],
        [{ format: 'misskey', token: 'tok', visibility: 'everyone' }, 'visibility'],
        [{ minIntensity: '8' }, 'minIntensity'],
        [{ areas: '1'.repeat(3000) }, 'areas'],
        [{ classifications: 'telegram.volcano' }, 'classifications'],
        [{ lang: 'fr' }, 'lang'],
        [{ test: 'only' }, 'test'],
        [{ formatMode: 'xml' }, 'formatMode'],
        [{ url: `https://hooks.example.test/${'a'.repeat(3000)}` }, 'url'],
      ];
      for (const [change, field] of cases) {
        const res = await page.request.post(`${server.url}/account/webhooks`, { form: { ...ok, ...change } });
        const what = `${JSON.stringify(change).slice(0, 80)} ${lang}`;
        assert.equal(res.status(), 400, what);
        const body = await res.text();
        assert.match(body, new RegExp(`id="${field}-error"`), what);
        assert.ok(!body.includes('value="tok"'), `${what}: no token sent back`);
      }
      assert.equal((await subscriptions()).length, 0, 'nothing made');
    } finally {
      await context.close();
    }
  }
});

test('http where the server does not allow it is refused beside the URL, with what allows it', async () => {
  const strict = await startTestServer({ config: { webhookAllowPrivate: false } });
  const a = await strict.createAccount({ contracts: ['telegram.earthquake'] });
  const who = { email: a.account.email, password: a.password };
  const { context, page } = await signedInPage(browser, strict.url, who, { ...DESKTOP, lang: 'en' });
  try {
    await page.goto(`${strict.url}/account/webhooks/new`);
    for (const [url, why] of [
      ['http://hooks.example.test/x', /start with https:\/\/.*NAMAZU_WEBHOOK_ALLOW_PRIVATE=true/],
      ['https://127.0.0.1:8443/x', /loopback.*NAMAZU_WEBHOOK_ALLOW_PRIVATE=true/],
      ['https://user:pw@hooks.example.test/x', /user name or password/],
    ] as const) {
      await fillWebhookForm(page, { url, format: 'namazu' });
      await submit(page);
      assert.match(await page.locator('#url-error').innerText(), why, url);
      assert.equal(await page.locator('#url').inputValue(), url);
    }
    assert.equal((await listSubscriptions(strict.ctx.db, a.account.id)).length, 0);
  } finally {
    await context.close();
    await strict.close();
  }
});

test('at the cap of webhooks the form says so, keeps what was typed and makes nothing', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'ja' });
  try {
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_ACCOUNT; i++) {
      await page.goto(`${server.url}/account/webhooks/new`);
      await page.locator('#url').fill(`${receiver.url}/${i}`);
      await page.locator('input[name=classifications]').check();
      await Promise.all([page.waitForEvent('load'), page.locator('#main button[type=submit]').click()]);
    }
    assert.equal((await subscriptions()).length, MAX_SUBSCRIPTIONS_PER_ACCOUNT);
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: `${receiver.url}/one-more`, format: 'ntfy' });
    await submit(page);
    assert.match(await page.locator('#form-alert').innerText(), /上限の20個/);
    assert.equal(await page.locator('#url').inputValue(), `${receiver.url}/one-more`);
    assert.equal(await page.locator('#format-ntfy').isChecked(), true);
    assert.equal((await subscriptions()).length, MAX_SUBSCRIPTIONS_PER_ACCOUNT);
    await assertAccessible(page, 'at the cap');
  } finally {
    await context.close();
    await clearSubscriptions();
  }
});

test('a sign-in that ended while the form was open: sign in again, back to the form, nothing made', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'en' });
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'namazu' });
    // Signed out in another tab of the same browser.
    const other = await context.newPage();
    await other.goto(`${server.url}/account`);
    await other.locator('details.menu.wide summary').click();
    await other.locator('details.menu.wide button', { hasText: 'Sign out' }).click();
    await other.waitForURL((u) => u.pathname === '/account/signin');
    await other.close();
    await submit(page);
    const here = new URL(page.url());
    assert.equal(here.pathname, '/account/signin');
    assert.equal(here.searchParams.get('return_to'), '/account/webhooks/new');
    assert.equal((await subscriptions()).length, 0, 'nothing made');
    await page.locator('#email').fill(person.email);
    await page.locator('#password').fill(person.password);
    await submit(page);
    assert.equal(new URL(page.url()).pathname, '/account/webhooks/new');
  } finally {
    await context.close();
    await clearSubscriptions();
  }
});

test('safe headers on every page of the area; error pages speak the page language', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'ja' });
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'namazu' });
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      submit(page),
    ]);
    assert.equal(created.status(), 201);
    const [s] = await subscriptions();
    for (const path of [
      '/account/webhooks',
      '/account/webhooks/new',
      `/account/webhooks/${s!.id}`,
      `/account/webhooks/${s!.id}/delete`,
    ]) {
      const res = (await page.goto(server.url + path))!;
      for (const response of [res, created]) {
        const h = response.headers();
        assert.match(
          h['content-security-policy']!,
          /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/,
          path,
        );
        assert.equal(h['x-frame-options'], 'DENY', path);
        assert.equal(h['referrer-policy'], 'no-referrer', path);
        assert.equal(h['cache-control'], 'no-store', path);
      }
    }
    // Error pages in the page's language, whatever area answers.
    for (const path of [
      '/account/webhooks/99999',
      '/console/telegrams/99999',
      '/account/webhooks/%E0%A4%A',
    ]) {
      const res = (await page.goto(server.url + path))!;
      assert.ok(res.status() >= 400 && res.status() < 500, `${path}: ${res.status()}`);
      assert.equal(await page.locator('html').getAttribute('lang'), 'ja', path);
      assert.equal(await page.locator('h1').innerText(), 'このリクエストは完了できません', path);
      assert.equal(res.headers()['cache-control'], 'no-store', path);
    }
  } finally {
    await context.close();
    await clearSubscriptions();
  }
});
