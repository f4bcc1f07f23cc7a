/**
 * The console's Webhooks area in Chromium, with a real HTTP receiver on loopback (the server allows
 * private addresses, as a LAN receiver needs): create a webhook by keyboard (bad input first: shown
 * beside each field, nothing created), see the signing secret once, send a test and see it arrive
 * signed, see a telegram's delivery listed, redeliver it under the same webhook-id, delete the
 * webhook after the confirmation page; forms without their CSRF token refused (403); the area's
 * pages fit a phone and a desktop in both languages and pass axe-core at each size.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { placeFilterMessages } from '../../../src/telegrams/place-filters.ts';
import { createSubscription, listSubscriptions } from '../../../src/webhooks/subscriptions.ts';
import { assertAccessible, launchChromium, signedInPage } from '../../support/chromium.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { waitFor } from '../../support/wait.ts';
import { fillWebhookForm, pressOn, submit, typeInto } from '../../support/webhook-form.ts';
import { madeSubscription } from '../../support/webhook-spec.ts';
import { startReceiver, type Receiver } from '../../webhooks/receiver.ts';

const SHOTS = join('test-output', 'screenshots');
const FIXTURES = join(process.env.NAMAZU_FIXTURES ?? '../shared/fixtures', 'jma-xml');
const QUAKE_FILE = join(FIXTURES, 'jma-official-samples', '32-35_01_03_240613_VXSE53.xml');
/** `checkedIn`: the language axe-core checks the pages in at that size (as test/console/layout-browser.test.ts). */
const SIZES = [
  { name: 'phone', width: 390, height: 844, checkedIn: 'ja' },
  { name: 'desktop', width: 1280, height: 800, checkedIn: 'en' },
] as const;

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let person: { email: string; password: string; id: number };

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  receiver = await startReceiver();
  server = await startTestServer({ config: { webhookAllowPrivate: true, webhookRetryBaseMs: 50 } });
  const a = await server.createAccount({ contracts: ['telegram.earthquake', 'eew.forecast'] });
  person = { email: a.account.email, password: a.password, id: a.account.id };
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

const signedIn = (options: { width: number; height: number; lang: 'en' | 'ja' }) =>
  signedInPage(browser, server.url, person, options);

const overflowOf = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

const subscriptions = () => listSubscriptions(server.ctx.db, person.id);

/** A webhook of the person's to the receiver, made directly: the tests that use it are about its page. */
function madeWebhook(lang: 'ja' | 'en') {
  return madeSubscription(server, person.id, receiver.url, { lang });
}

/** Removes a webhook made by `madeWebhook`, with its deliveries. */
async function dropWebhook(id: number) {
  await server.ctx.db.query('DELETE FROM webhook_deliveries WHERE subscription_id = $1', [id]);
  await server.ctx.db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
}

test('create by keyboard, the secret once, a test event and a telegram arriving, redeliver, delete', async () => {
  const { context, page } = await signedIn({ ...SIZES[1], lang: 'en' });
  try {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL((u) => u.pathname === '/account/webhooks');
    assert.match(await page.locator('#main').innerText(), /You have no webhook/);
    await page.getByRole('link', { name: 'Create a webhook' }).click();
    await page.waitForURL((u) => u.pathname === '/account/webhooks/new');

    // Bad input: every refused field says why beside it, the form keeps what was typed, nothing is made.
    await fillWebhookForm(page, { url: 'not a url', areas: 'tokyo', earthquake: false });
    await submit(page);
    assert.match(await page.locator('#url-error').innerText(), /absolute URL/);
    assert.equal(await page.locator('#url').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#areas-error').innerText(), placeFilterMessages.areas);
    assert.match(await page.locator('#classifications-error').innerText(), /at least one/);
    assert.equal(await page.locator('#areas').inputValue(), 'tokyo');
    assert.equal((await subscriptions()).length, 0, 'nothing created');
    await assertAccessible(page, 'webhook form with errors');
    await page.screenshot({ path: join(SHOTS, 'webhooks-form-error-desktop-en.png'), fullPage: true });

    await fillWebhookForm(page, { url: receiver.url, areas: '' });
    await submit(page);
    const secret = await page.locator('#new-secret').innerText();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const [created] = await subscriptions();
    assert.ok(created, 'created');
    assert.equal(created.url, receiver.url);
    assert.deepEqual(created.filter.classifications, ['telegram.earthquake']);
    await assertAccessible(page, 'webhook just created');
    const webhookPath = `/account/webhooks/${created.id}`;

    // The secret is shown once: neither the webhook's page nor the list shows it again.
    await page.goto(server.url + webhookPath);
    assert.equal(await page.locator('#new-secret').count(), 0);
    assert.ok(!(await page.content()).includes(secret.slice(6)), 'the secret is not shown again');
    await page.goto(`${server.url}/account/webhooks`);
    assert.ok(!(await page.content()).includes(secret.slice(6)));
    assert.match(await page.locator('#webhooks').innerText(), /127\.0\.0\.1:\d+\/hook\s+namazu\s+Active/);

    // Send a test: it arrives signed with that secret, and the page says what the receiver answered.
    await page.goto(server.url + webhookPath);
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.match(await page.locator('#test-outcome').innerText(), /delivered: HTTP 200/);
    assert.equal(receiver.received.length, 1);
    const testEvent = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers);
    assert.equal((testEvent as { type: string }).type, 'webhook.test');
    assert.match(await page.locator('#deliveries').innerText(), /test event/);
    await assertAccessible(page, 'webhook after a test');

    // A telegram of its classification is delivered and listed, then redelivered by hand under its id.
    const xml = readFileSync(QUAKE_FILE, 'utf8').replace('<Status>訓練</Status>', '<Status>通常</Status>');
    const outcome = await ingestTelegram(server.ctx, Buffer.from(xml), { receivedTime: Date.now() });
    assert.ok(outcome.ok);
    const first = await waitFor(
      () => receiver.received.find((r) => r.headers['webhook-id']!.startsWith(`msg_${created.id}_`)),
      {
        timeout: 15_000,
        message: 'the telegram at the receiver',
      },
    );
    assert.equal((new Webhook(secret).verify(first.body, first.headers) as { type: string }).type, 'data');
    const deliveryRow = page.locator('#deliveries tbody tr', { hasText: outcome.stored.id });
    await waitFor(
      async () => {
        await page.reload();
        return /delivered/.test(await deliveryRow.innerText());
      },
      { message: 'the delivery listed as delivered' },
    );
    assert.match(await deliveryRow.innerText(), /delivered\s+1\s+HTTP 200/);
    await pressOn(page, `#deliveries tbody tr:has-text("${outcome.stored.id}") button`, 'Enter');
    assert.match(await page.locator('.notice').innerText(), /queued again/);
    const again = await waitFor(
      () => {
        const same = receiver.received.filter((r) => r.headers['webhook-id'] === first.headers['webhook-id']);
        return same.length === 2 ? same[1] : null;
      },
      { timeout: 15_000, message: 'the redelivery at the receiver' },
    );
    new Webhook(secret).verify(again.body, again.headers);
    await waitFor(
      async () => {
        await page.reload();
        return /delivered\s+2\s+HTTP 200/.test(await deliveryRow.innerText());
      },
      { message: 'two attempts listed' },
    );

    // A test carrying the stored telegram, chosen by keyboard: its data message inside a test event.
    await page.locator('#test-telegram').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('#test-telegram').inputValue(), outcome.stored.id);
    assert.match(
      await page.locator('#test-telegram option:checked').innerText(),
      /^VXSE53 震源・震度情報 · \d{4}-\d\d-\d\d \d\d:\d\d JST$/,
    );
    const heardBefore = receiver.received.length;
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.match(await page.locator('#test-outcome').innerText(), /delivered: HTTP 200/);
    const carried = new Webhook(secret).verify(
      receiver.received[heardBefore]!.body,
      receiver.received[heardBefore]!.headers,
    ) as { type: string; telegram: { id: string } };
    assert.equal(carried.type, 'webhook.test');
    assert.equal(carried.telegram.id, outcome.stored.id);
    await assertAccessible(page, 'webhook after a test carrying a telegram');

    // Delete: a confirmation page first, then the webhook is gone.
    await page.getByRole('link', { name: 'Delete this webhook' }).click();
    await page.waitForURL((u) => u.pathname === `${webhookPath}/delete`);
    await assertAccessible(page, 'delete confirmation');
    assert.equal((await subscriptions()).length, 1, 'the confirmation page deletes nothing');
    await pressOn(page, 'button.danger', 'Enter');
    assert.equal(new URL(page.url()).pathname, '/account/webhooks');
    assert.match(await page.locator('.notice').innerText(), /deleted/);
    assert.equal((await subscriptions()).length, 0);
  } finally {
    await context.close();
  }
});

test('a disabled webhook is enabled again from its page by keyboard, in Japanese; the next telegram arrives; disabled again by its owner', async () => {
  const { context, page } = await signedIn({ ...SIZES[0], lang: 'ja' });
  const created = await madeWebhook('ja');
  const id = created.subscription.id;
  try {
    // Disabled as days of failures leave it (docs/webhooks.md "Delivery and retries"), with a failed delivery.
    const xml = readFileSync(QUAKE_FILE, 'utf8').replace('<Status>訓練</Status>', '<Status>通常</Status>');
    const before = await ingestTelegram(server.ctx, Buffer.from(`${xml}\n<!-- before -->\n`), {
      receivedTime: Date.now(),
    });
    assert.ok(before.ok);
    await waitFor(
      () => receiver.received.some((r) => r.headers['webhook-id'] === `msg_${id}_${before.stored.serial}`),
      {
        message: 'the first telegram at the receiver',
      },
    );
    await server.ctx.db.query(
      `UPDATE webhook_subscriptions SET state = 'disabled', failing_since = '2026-11-20T00:00:00Z',
         disabled_reason = 'every delivery failed since 2026-11-20T00:00:00Z' WHERE id = $1`,
      [id],
    );
    await page.goto(`${server.url}/account/webhooks/${id}`);
    // The reason in the page's language and time zone (JST), as the console's other times.
    assert.equal(
      await page.locator('#webhook-state').innerText(),
      '無効: 配信の失敗が継続したため、開始 2026-11-20 09:00 JST',
    );
    assert.equal(await page.locator('#deliveries button').count(), 0, 'no redelivery offered while disabled');
    await assertAccessible(page, 'disabled webhook');
    await page.screenshot({ path: join(SHOTS, 'webhook-disabled-phone-ja.png'), fullPage: true });

    await pressOn(page, 'button:has-text("再び有効にする")', 'Enter');
    assert.equal(new URL(page.url()).pathname, `/account/webhooks/${id}`);
    assert.match(await page.locator('.notice').innerText(), /再び有効にしました/);
    assert.equal(await page.locator('#webhook-state').innerText(), '有効');
    assert.equal(await page.getByRole('button', { name: '再び有効にする' }).count(), 0);
    assert.equal(
      await page.locator('#deliveries button').count(),
      1,
      'the delivery can be redelivered again',
    );
    await assertAccessible(page, 'webhook enabled again');

    const next = await ingestTelegram(server.ctx, Buffer.from(`${xml}\n<!-- after -->\n`), {
      receivedTime: Date.now(),
    });
    assert.ok(next.ok);
    await waitFor(
      () => receiver.received.some((r) => r.headers['webhook-id'] === `msg_${id}_${next.stored.serial}`),
      {
        timeout: 15_000,
        message: 'the next telegram at the receiver',
      },
    );

    // Its owner pauses it, by the button below the secret's; the page says so, and offers it back.
    await pressOn(page, 'button:has-text("無効にする")', 'Enter');
    assert.match(await page.locator('.notice').innerText(), /Webhookを無効にしました/);
    assert.equal(await page.locator('#webhook-state').innerText(), '無効: あなたが無効にしました');
    assert.equal(await page.getByRole('button', { name: '再び有効にする' }).count(), 1);
    await assertAccessible(page, 'webhook disabled by its owner');
  } finally {
    await context.close();
    await dropWebhook(id);
  }
});

test('failed deliveries are shown apart and redelivered together from the page by keyboard, each once under its webhook-id; the deliveries page by page', async () => {
  const { context, page } = await signedIn({ ...SIZES[1], lang: 'en' });
  const down = await startReceiver({ status: 204 });
  // Two telegrams stored before the webhook is made (so never queued for it by the queuer); their
  // deliveries are then written failed, as a receiver down for days leaves them: one of a telegram
  // received three days ago, what the receiver answered kept with each.
  const xml = readFileSync(QUAKE_FILE, 'utf8').replace('<Status>訓練</Status>', '<Status>通常</Status>');
  const serials: number[] = [];
  for (const which of ['old', 'new']) {
    const out = await ingestTelegram(server.ctx, Buffer.from(`${xml}\n<!-- ${which} -->\n`), {
      receivedTime: Date.now(),
    });
    assert.ok(out.ok);
    serials.push(out.stored.serial);
  }
  const made = await madeSubscription(server, person.id, down.url, { lang: 'en' });
  const id = made.subscription.id;
  const webhookPath = `/account/webhooks/${id}`;
  try {
    await server.ctx.db.query(
      `INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, state, attempts,
         last_status, last_error, last_response, created_at, retry_from)
       SELECT $1::int8, s, 'msg_' || $1::int8 || '_' || s, 1, 'failed', 9, 500, 'HTTP 500', 'ok',
         now() - CASE WHEN s = $2 THEN interval '3 days' ELSE interval '1 minute' END, now() - interval '1 day'
       FROM unnest($3::int8[]) AS s`,
      [id, serials[0]!, serials],
    );

    await page.goto(server.url + webhookPath);
    assert.match(
      await page.locator('#failed-kept').innerText(),
      /^Failed deliveries kept: 2, the oldest of a telegram received \d{4}-\d\d-\d\d \d\d:\d\d JST\.$/,
    );
    await pressOn(page, '#delivery-filter a:has-text("failed ones only")', 'Enter');
    assert.equal(new URL(page.url()).searchParams.get('deliveries'), 'failed');
    assert.equal(await page.locator('#delivery-filter a[aria-current=page]').innerText(), 'failed ones only');
    assert.equal(await page.locator('#deliveries tbody tr').count(), 2);
    assert.equal(await page.locator('#deliveries tbody tr', { hasText: 'failed' }).count(), 2);
    // What the receiver said, beside its status: the start of its body.
    assert.deepEqual(await page.locator('#deliveries code.response-body').allInnerTexts(), ['ok', 'ok']);
    await assertAccessible(page, 'failed deliveries and their recovery');

    // The receiver is back: the last 24 hours (the choice offered first) bring the newer one.
    assert.equal(await page.locator('#recover-period').inputValue(), '24h');
    await pressOn(page, 'button:has-text("Redeliver failed deliveries")', 'Enter');
    assert.equal(
      await page.locator('.notice').innerText(),
      'Failed deliveries queued again: 1. Each keeps its webhook-id; they are sent over the next minutes.',
    );
    await waitFor(() => down.accepted.length === 1, { message: 'the newer one at the receiver' });
    assert.equal(down.accepted[0]!.headers['webhook-id'], `msg_${id}_${serials[1]}`);

    // Chosen by keyboard: every failed delivery kept brings the older one; then none is left to offer.
    await page.locator('#recover-period').focus();
    await page.keyboard.press('End');
    assert.equal(await page.locator('#recover-period').inputValue(), 'all');
    await pressOn(page, 'button:has-text("Redeliver failed deliveries")', 'Enter');
    assert.match(await page.locator('.notice').innerText(), /queued again: 1\./);
    await waitFor(() => down.accepted.length === 2, { message: 'the older one at the receiver' });
    assert.equal(down.accepted[1]!.headers['webhook-id'], `msg_${id}_${serials[0]}`);
    await waitFor(
      async () => {
        await page.goto(`${server.url}${webhookPath}?deliveries=failed`);
        return (await page.locator('#no-deliveries').count()) === 1;
      },
      { message: 'no failed delivery left' },
    );
    assert.equal(await page.locator('#no-deliveries').innerText(), 'No delivery failed.');
    assert.equal(await page.locator('#recover-heading').count(), 0, 'nothing left to redeliver together');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Each sent once, none twice.
    assert.equal(down.received.length, 2);

    // More deliveries than a page: the older ones a link away, and back to the newest.
    for (let i = 0; i < 20; i++) await server.app.webhooks.sendTest(made.subscription);
    await page.goto(server.url + webhookPath);
    assert.equal(await page.locator('#deliveries tbody tr').count(), 20);
    assert.equal(await page.locator('#newest-deliveries').count(), 0);
    await pressOn(page, '#older-deliveries', 'Enter');
    assert.equal(await page.locator('#deliveries tbody tr').count(), 2);
    // The two telegrams' deliveries, older than the twenty test events.
    assert.equal(await page.locator('#deliveries tbody tr', { hasText: 'test event' }).count(), 0);
    assert.equal(await page.locator('#older-deliveries').count(), 0);
    await pressOn(page, '#newest-deliveries', 'Enter');
    assert.equal(await page.locator('#deliveries tbody tr').count(), 20);
  } finally {
    await context.close();
    await down.close();
    await dropWebhook(id);
  }
});

test('the signing secret is rotated from the page by keyboard: shown once, both secrets sign for a day; a form sent again rotates nothing', async () => {
  const { context, page } = await signedIn({ ...SIZES[1], lang: 'en' });
  const created = await madeWebhook('en');
  const id = created.subscription.id;
  const first = created.secret;
  try {
    await page.goto(`${server.url}/account/webhooks/${id}`);
    assert.match(
      await page.locator('#secret-since').innerText(),
      /^The current secret since \d{4}-\d\d-\d\d \d\d:\d\d JST$/,
    );
    assert.ok(await page.locator('#previous-day').isChecked(), 'a day of overlap is the default');
    await pressOn(page, 'button:has-text("Rotate the signing secret")', 'Enter');
    assert.match(await page.locator('.notice').innerText(), /rotated/);
    const second = await page.locator('#new-secret').innerText();
    assert.match(second, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.notEqual(second, first);
    assert.match(
      await page.locator('#secret-since').innerText(),
      /the secret it replaced signs beside it until/,
    );
    await assertAccessible(page, 'secret rotated');

    // Sent again (a reload of the answer): nothing rotated, no secret shown.
    const again = await page.reload();
    assert.equal(again?.status(), 409);
    assert.match(await page.locator('#main').innerText(), /sent already/);
    assert.ok(!(await page.content()).includes('whsec_'));

    // A test event from the page: both secrets verify it.
    await page.goto(`${server.url}/account/webhooks/${id}`);
    const heard = receiver.received.length;
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    const test = receiver.received[heard]!;
    new Webhook(first).verify(test.body, test.headers);
    new Webhook(second).verify(test.body, test.headers);

    // The old secret stopped at once: only the newest verifies.
    await page.locator('#previous-none').focus();
    await page.keyboard.press('Space');
    await pressOn(page, 'button:has-text("Rotate the signing secret")', 'Enter');
    const third = await page.locator('#new-secret').innerText();
    assert.doesNotMatch(await page.locator('#secret-since').innerText(), /replaced/);
    await page.goto(`${server.url}/account/webhooks/${id}`);
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    const last = receiver.received.at(-1)!;
    new Webhook(third).verify(last.body, last.headers);
    assert.throws(() => new Webhook(second).verify(last.body, last.headers));
  } finally {
    await context.close();
    await dropWebhook(id);
  }
});

test("a webhook's settings are changed by keyboard: refused input shown beside its field, then saved; the secret stays", async () => {
  const { context, page } = await signedIn({ ...SIZES[1], lang: 'en' });
  const created = await madeWebhook('ja');
  const id = created.subscription.id;
  try {
    await page.goto(`${server.url}/account/webhooks/${id}`);
    await page.getByRole('link', { name: 'Change the settings' }).click();
    await page.waitForURL((u) => u.pathname === `/account/webhooks/${id}/edit`);
    assert.equal(await page.locator('#url').inputValue(), receiver.url, 'the form holds the settings');
    assert.ok(await page.locator('#lang-ja').isChecked());
    await assertAccessible(page, 'webhook settings form');

    await typeInto(page, '#url', 'not a url');
    await typeInto(page, '#areas', '130');
    await submit(page);
    assert.match(await page.locator('#url-error').innerText(), /absolute URL/);
    assert.equal(await page.locator('#areas').inputValue(), '130', 'what was typed is kept');
    assert.equal((await subscriptions()).find((s) => s.id === id)!.url, receiver.url, 'nothing changed');

    await typeInto(page, '#url', receiver.url);
    await page.locator('#lang-en').focus();
    await page.keyboard.press('Space');
    await submit(page);
    assert.equal(new URL(page.url()).pathname, `/account/webhooks/${id}`);
    assert.match(await page.locator('.notice').innerText(), /settings were saved/);
    const [changed] = (await subscriptions()).filter((s) => s.id === id);
    assert.equal(changed!.lang, 'en');
    assert.deepEqual(changed!.filter.areas, ['130']);

    // The same secret signs the next delivery.
    const heard = receiver.received.length;
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    const test = receiver.received[heard]!;
    new Webhook(created.secret).verify(test.body, test.headers);

    // A classification whose contract ended is offered ticked, marked so, and kept by a save; unticked, it goes.
    await server.ctx.db.query(
      `UPDATE webhook_subscriptions SET classifications = ARRAY['telegram.earthquake', 'telegram.volcano'] WHERE id = $1`,
      [id],
    );
    const volcano = page.getByRole('checkbox', { name: /telegram\.volcano/ });
    await page.goto(`${server.url}/account/webhooks/${id}/edit`);
    assert.ok(await volcano.isChecked());
    assert.match(
      await page.locator('label', { hasText: 'telegram.volcano' }).innerText(),
      /no running contract/,
    );
    await typeInto(page, '#areas', '');
    await submit(page);
    const classificationsNow = async () =>
      (await subscriptions()).find((s) => s.id === id)!.filter.classifications;
    assert.deepEqual(await classificationsNow(), ['telegram.earthquake', 'telegram.volcano']);
    await page.goto(`${server.url}/account/webhooks/${id}/edit`);
    await volcano.focus();
    await page.keyboard.press('Space');
    await submit(page);
    assert.deepEqual(await classificationsNow(), ['telegram.earthquake']);
    await page.goto(`${server.url}/account/webhooks/${id}/edit`);
    assert.equal(await volcano.count(), 0, 'no longer offered');
  } finally {
    await context.close();
    await dropWebhook(id);
  }
});

test('forms without their CSRF token are refused (403) and change nothing', async () => {
  const { context, page } = await signedIn({ ...SIZES[1], lang: 'en' });
  const created = await madeWebhook('ja');
  const id = created.subscription.id;
  const heard = receiver.received.length;
  try {
    const form = {
      url: receiver.url,
      format: 'namazu',
      lang: 'ja',
      classifications: 'telegram.earthquake',
      test: 'no',
      formatMode: 'raw',
    };
    for (const csrf of [undefined, 'forged']) {
      const extra: Record<string, string> = csrf === undefined ? {} : { csrf };
      const posts: [string, Record<string, string>][] = [
        ['/account/webhooks', form],
        [`/account/webhooks/${id}/test`, {}],
        [`/account/webhooks/${id}/enable`, {}],
        [`/account/webhooks/${id}/disable`, {}],
        [`/account/webhooks/${id}/recover`, { period: 'all' }],
        [`/account/webhooks/${id}/redeliver`, { delivery: '1' }],
        [`/account/webhooks/${id}/edit`, form],
        [`/account/webhooks/${id}/secret`, { previous: 'none', secretFrom: new Date().toISOString() }],
        [`/account/webhooks/${id}/delete`, {}],
      ];
      for (const [path, fields] of posts) {
        const res = await page.request.post(server.url + path, {
          form: { ...fields, ...extra },
          maxRedirects: 0,
        });
        assert.equal(res.status(), 403, `${path} with csrf ${csrf}`);
      }
    }
    assert.equal((await subscriptions()).length, 1, 'nothing created or deleted');
    assert.equal((await subscriptions())[0]!.state, 'active', 'not disabled');
    assert.equal(receiver.received.length, heard, 'no test event sent');
  } finally {
    await context.close();
    await dropWebhook(id);
  }
});

test('a Misskey webhook made by keyboard posts Home, local-only notes; the choices are refused for another format', async () => {
  const { context, page } = await signedIn({ ...SIZES[0], lang: 'ja' });
  let id: number | null = null;
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, areas: '' });
    // Home with the Namazu format: refused beside the select, nothing created.
    await page.locator('#visibility').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('#visibility').inputValue(), 'home');
    await submit(page);
    assert.match(await page.locator('#visibility-error').innerText(), /Misskey形式でのみ/);
    assert.equal(await page.locator('#visibility').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#visibility').inputValue(), 'home', 'kept as chosen');
    assert.equal((await subscriptions()).length, 0, 'nothing created');
    await assertAccessible(page, 'misskey options refused');

    // Misskey, its token, Home (kept from before) and local only: created, and its page says so.
    await page.getByRole('radio', { name: /Misskey/ }).focus();
    await page.keyboard.press('Space');
    await page.locator('#token').focus();
    await page.keyboard.type('misskey-token-typed');
    const localOnly = page.getByRole('checkbox', { name: 'ローカルのみ（連合なし）' });
    await localOnly.focus();
    await page.keyboard.press('Space');
    assert.equal(await localOnly.isChecked(), true);
    await submit(page);
    const [created] = await subscriptions();
    assert.ok(created, 'created');
    id = created.id;
    assert.equal(created.format, 'misskey');
    assert.equal(created.visibility, 'home');
    assert.equal(created.localOnly, true);
    assert.match(await page.locator('#webhook-visibility').innerText(), /^ホーム/);
    assert.equal(await page.locator('#webhook-local-only').innerText(), 'はい');

    // Its test event is a Home, local-only note with the token typed.
    await pressOn(page, 'button:has-text("テスト送信")', 'Enter');
    const note = JSON.parse(receiver.received.at(-1)!.body);
    assert.deepEqual([note.i, note.visibility, note.localOnly], ['misskey-token-typed', 'home', true]);

    // Its settings changed with the token field left empty: the token stays, the rest changes.
    await page.getByRole('link', { name: '設定を変更' }).click();
    assert.equal(await page.locator('#token').inputValue(), '', 'the token is never shown');
    await localOnly.focus();
    await page.keyboard.press('Space');
    await submit(page);
    assert.match(await page.locator('.notice').innerText(), /設定を保存しました/);
    await pressOn(page, 'button:has-text("テスト送信")', 'Enter');
    const changed = JSON.parse(receiver.received.at(-1)!.body);
    // Federated again: Misskey's default, so `localOnly` is left out of the note.
    assert.deepEqual(
      [changed.i, changed.visibility, 'localOnly' in changed],
      ['misskey-token-typed', 'home', false],
    );
  } finally {
    await context.close();
    if (id !== null) await server.ctx.db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
  }
});

test('extra request headers typed by keyboard go with the test event; a bad line is refused beside the field; a change keeps them, replaces or removes them', async () => {
  const { context, page } = await signedIn({ ...SIZES[0], lang: 'en' });
  let id: number | null = null;
  const lastHeaders = () => receiver.received.at(-1)!.headers;
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'ntfy', areas: '' });
    // A header the ntfy post sets itself: refused beside the field, not sent back, nothing created.
    await typeInto(page, '#headers', 'Authorization: Bearer tk_typed\nPriority: 5');
    await submit(page);
    assert.match(await page.locator('#headers-error').innerText(), /none the delivery sets itself/);
    assert.equal(await page.locator('#headers').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#headers').inputValue(), '', 'the values are never sent back');
    assert.equal((await subscriptions()).length, 0, 'nothing created');
    await assertAccessible(page, 'headers refused');

    await typeInto(page, '#headers', 'Authorization: Bearer tk_typed\nClick: https://example.test/q');
    await submit(page);
    const [created] = await subscriptions();
    assert.ok(created, 'created');
    id = created.id;
    assert.deepEqual(created.headerNames, ['Authorization', 'Click']);
    assert.equal(await page.locator('#webhook-headers').innerText(), 'Authorization, Click');
    assert.doesNotMatch(await page.content(), /tk_typed/, 'the value is not shown');
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.equal(lastHeaders().authorization, 'Bearer tk_typed');
    assert.equal(lastHeaders().click, 'https://example.test/q');

    // Changed with the field left empty: kept, and the form names them.
    await page.getByRole('link', { name: 'Change the settings' }).click();
    assert.equal(await page.locator('#headers').inputValue(), '');
    assert.match(await page.locator('#headers-hint').innerText(), /Set now: Authorization, Click\./);
    await page.getByRole('radio', { name: /Slack/ }).focus();
    await page.keyboard.press('Space');
    await submit(page);
    assert.match(await page.locator('.notice').innerText(), /settings were saved/);
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.equal(lastHeaders().authorization, 'Bearer tk_typed', 'kept');

    // Lines typed replace them all; the box removes them.
    await page.getByRole('link', { name: 'Change the settings' }).click();
    await typeInto(page, '#headers', 'X-Key: second');
    await submit(page);
    assert.equal(await page.locator('#webhook-headers').innerText(), 'X-Key');
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.deepEqual([lastHeaders()['x-key'], lastHeaders().authorization], ['second', undefined]);
    await page.getByRole('link', { name: 'Change the settings' }).click();
    await page.getByRole('checkbox', { name: 'Remove the extra request headers' }).focus();
    await page.keyboard.press('Space');
    await submit(page);
    assert.equal(await page.locator('#webhook-headers').innerText(), 'none');
    await pressOn(page, 'button:has-text("Send a test")', 'Enter');
    assert.equal(lastHeaders()['x-key'], undefined, 'removed');
  } finally {
    await context.close();
    if (id !== null) await dropWebhook(id);
  }
});

test('a Discord mention typed by keyboard: refused beside its field in the wrong syntax, then saved with its threshold and shown', async () => {
  const { context, page } = await signedIn({ ...SIZES[0], lang: 'ja' });
  let id: number | null = null;
  try {
    await page.goto(`${server.url}/account/webhooks/new`);
    await fillWebhookForm(page, { url: receiver.url, format: 'discord', areas: '' });
    await typeInto(page, '#mention', '<!channel>');
    await submit(page);
    assert.match(await page.locator('#mention-error').innerText(), /Discord（<@&ロールID>/);
    assert.equal(await page.locator('#mention').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#mention').inputValue(), '<!channel>', 'kept as typed');
    assert.equal((await subscriptions()).length, 0, 'nothing created');

    await typeInto(page, '#mention', '<@&123456789012345678>');
    await page.locator('#mentionOn').focus();
    await page.keyboard.press('ArrowDown');
    await submit(page);
    const [created] = await subscriptions();
    assert.ok(created, 'created');
    id = created.id;
    assert.deepEqual([created.mention, created.mentionOn], ['<@&123456789012345678>', 'high']);
    assert.match(await page.locator('#webhook-mention').innerText(), /^<@&123456789012345678> \(それに加え/);
    await assertAccessible(page, 'a webhook with a mention');
    // A test pings only when asked to show the mention.
    await pressOn(page, 'button:has-text("テスト送信")', 'Enter');
    assert.deepEqual(JSON.parse(receiver.received.at(-1)!.body).allowed_mentions, { parse: [] });
    await page.getByRole('checkbox', { name: /メンションを付けて送る/ }).focus();
    await page.keyboard.press('Space');
    await pressOn(page, 'button:has-text("テスト送信")', 'Enter');
    const pinged = JSON.parse(receiver.received.at(-1)!.body);
    assert.ok(pinged.content.startsWith('<@&123456789012345678> 【試験】'), pinged.content);
  } finally {
    await context.close();
    if (id !== null) await dropWebhook(id);
  }
});

test('the Webhooks pages fit a phone and a desktop in both languages, and pass axe-core at each size', async () => {
  const service = server.app.webhooks;
  const spec = {
    url: `${receiver.url}/${'t'.repeat(40)}`,
    classifications: ['telegram.earthquake', 'eew.forecast'],
    types: ['VXSE53', 'VXSE51'],
    test: 'including' as const,
    formatMode: 'json' as const,
    areas: ['13', '14'],
    minIntensity: '3' as const,
    format: 'misskey' as const,
    lang: 'en' as const,
    token: 'misskey-token-not-shown',
    visibility: 'home' as const,
    localOnly: true,
    headers: [['Authorization', 'Bearer not-shown']] as [string, string][],
    mention: null,
    mentionOn: 'urgent' as const,
  };
  const created = await createSubscription(server.ctx.db, service.box, person.id, spec, '127.0.0.1');
  assert.ok(created.ok);
  await service.sendTest(created.subscription);
  const id = created.subscription.id;
  // A failed telegram delivery, as a receiver down for days leaves it: the page offers its recovery.
  await server.ctx.db.query(
    `INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, state, attempts, last_status)
     SELECT $1::int8, max(serial), 'msg_' || $1::int8 || '_' || max(serial), 1, 'failed', 9, 503 FROM telegrams`,
    [id],
  );
  const pages = [
    '/account/webhooks',
    '/account/webhooks/new',
    `/account/webhooks/${id}`,
    `/account/webhooks/${id}?deliveries=failed`,
    `/account/webhooks/${id}/edit`,
    `/account/webhooks/${id}/delete`,
  ];
  try {
    for (const size of SIZES) {
      for (const lang of ['en', 'ja'] as const) {
        const { context, page } = await signedIn({ ...size, lang });
        try {
          for (const path of pages) {
            await page.goto(server.url + path);
            const what = `${path} ${size.name} ${lang}`;
            assert.equal(await page.locator('html').getAttribute('lang'), lang, what);
            assert.ok((await overflowOf(page)) <= 0, `${what}: ${await overflowOf(page)} px too wide`);
            assert.ok(!(await page.content()).includes('misskey-token-not-shown'), `${what}: no token`);
            if (lang === size.checkedIn) await assertAccessible(page, what);
            const name = path.replace(/^\/account\//, '').replace(/[/?=]/g, '-');
            await page.screenshot({ path: join(SHOTS, `${name}-${size.name}-${lang}.png`), fullPage: true });
          }
          // The list shows the host and path without the token-like segment.
          await page.goto(`${server.url}/account/webhooks`);
          assert.ok(!(await page.locator('#webhooks').innerText()).includes('t'.repeat(40)));
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await dropWebhook(id);
  }
});
