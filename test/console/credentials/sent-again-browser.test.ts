/**
 * Secrets shown once, and a reload of the page that showed them, in Chromium: the answer to a
 * creation (an API key, an OAuth client) or to "Issue a new secret" is the answer to a POST, and a
 * reload, or Back and resend, posts the same form again. It must make no second credential (one
 * nobody copied, valid and unnoticed) nor replace the secret just copied, and show no secret again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { listApiKeys } from '../../../src/accounts/api-keys.ts';
import { listClientsOf } from '../../../src/issuer/client-management.ts';
import { verifyClientSecret } from '../../../src/issuer/clients.ts';
import { assertAccessible, launchChromium, signedInPage } from '../../support/chromium.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

let server: TestServer;
let browser: Browser;
let person: { email: string; password: string; id: number };

before(async () => {
  browser = await launchChromium();
  server = await startTestServer();
  const a = await server.createAccount();
  person = { email: a.account.email, password: a.password, id: a.account.id };
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const DESKTOP = { width: 1280, height: 800 };
const keys = async () => (await listApiKeys(server.ctx.db, person.id)).items;
const clients = () => listClientsOf(server.ctx.db, person.id);

/** Clicks the page's submit button `name`d by its text, waiting for the answer. */
async function press(page: Page, text: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.locator('button', { hasText: text }).click()]);
}

test('an API key: a reload or Back to its creation makes no second key and shows no value', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'en' });
  try {
    await page.goto(`${server.url}/account/keys`);
    await page.locator('input[name=scope][value="telegram.list"]').check();
    await press(page, 'Create key');
    const value = await page.locator('#new-key').innerText();
    assert.match(value, /^AKe\./);
    assert.equal((await keys()).length, 1);

    const reloaded = await page.reload();
    assert.equal((await keys()).length, 1, 'the reload made no second key');
    assert.equal(reloaded?.status(), 409);
    assert.ok(!(await page.content()).includes('AKe.'), 'no key value after a reload');
    assert.match(await page.locator('#form-alert').innerText(), /already/);
    await assertAccessible(page, 'keys page after a reload');

    // The form of that answer makes a second key of the same scopes, as asked.
    await page.locator('input[name=scope][value="telegram.list"]').check();
    await press(page, 'Create key');
    assert.match(await page.locator('#new-key').innerText(), /^AKe\./);
    assert.equal((await keys()).length, 2);

    // Back to that answer: Chromium asks before posting it again (ERR_CACHE_MISS) or shows it from
    // memory; either way nothing is made and no value shown.
    await page.goto(`${server.url}/account`);
    await page.goBack().catch((err: Error) => assert.match(err.message, /ERR_CACHE_MISS/));
    await page.waitForLoadState('networkidle');
    assert.ok(!(await page.content()).includes('AKe.'), 'no key value after Back');
    assert.equal((await keys()).length, 2, 'Back made nothing');
  } finally {
    await context.close();
  }
});

test('an OAuth client: a reload of its registration registers no second client and shows no secret', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'ja' });
  try {
    await page.goto(`${server.url}/account/clients/new`);
    await page.locator('#name').fill('Reloaded app');
    await page.locator('#type-confidential').check();
    await page.locator('#redirectUris').fill('https://app.example.test/callback');
    await page.locator('input[name=grant][value=authorization_code]').check();
    await page.locator('input[name=scope][value="telegram.list"]').check();
    await press(page, 'クライアントを登録');
    const secret = await page.locator('#new-secret').innerText();
    assert.equal((await clients()).length, 1);

    const reloaded = await page.reload();
    assert.equal((await clients()).length, 1, 'the reload registered no second client');
    assert.equal(reloaded?.status(), 409);
    assert.ok(!(await page.content()).includes(secret), 'no secret after a reload');
    const [made] = await clients();
    assert.equal(await page.locator('#form-alert a').getAttribute('href'), `/account/clients/${made!.id}`);
    await assertAccessible(page, 'client form after a reload');
  } finally {
    await context.close();
  }
});

test('"Issue a new secret" reloaded keeps the secret it showed working and shows no other', async () => {
  const { context, page } = await signedInPage(browser, server.url, person, { ...DESKTOP, lang: 'en' });
  try {
    const [client] = await clients();
    await page.goto(`${server.url}/account/clients/${client!.id}`);
    await press(page, 'Issue a new secret');
    const secret = await page.locator('#new-secret').innerText();
    const works = () => verifyClientSecret(server.ctx.db, server.ctx.pepper, client!.clientId, secret);
    assert.ok(await works());

    const reloaded = await page.reload();
    assert.ok(await works(), 'the secret shown still works after a reload');
    assert.equal(reloaded?.status(), 409);
    assert.ok(!(await page.content()).includes('id="new-secret"'), 'no new secret shown');
    assert.match(await page.locator('#form-alert').innerText(), /already/);

    // The button of that answer issues another, as asked.
    await press(page, 'Issue a new secret');
    const next = await page.locator('#new-secret').innerText();
    assert.notEqual(next, secret);
    assert.ok(!(await works()), 'the replaced secret stops');
  } finally {
    await context.close();
  }
});
