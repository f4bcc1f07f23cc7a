/**
 * The API reference in a real browser (Chromium): it renders the OpenAPI document with its Markdown,
 * the data API and the authorization server's endpoints, under its own CSP (a script refused would
 * leave the page empty), and fits a phone and a desktop without horizontal scrolling. Screenshots
 * go to test-output/screenshots for a person to look at; they are not compared to anything.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SHOTS = 'test-output/screenshots';

let server: TestServer;
let browser: Browser;
before(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser.close();
  await server.close();
});

for (const [name, viewport] of [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 800 }],
] as const) {
  test(`the reference renders its operations and fits a ${name} (${viewport.width} px)`, async () => {
    const page = await browser.newPage({ viewport });
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') refused.push(m.text());
    });
    await page.goto(`${server.url}/reference`);
    await page.locator('.opblock-summary-path', { hasText: '/v2/telegram' }).first().waitFor();
    // Markdown of the description is rendered: backticks become code elements.
    const codes = await page.locator('.info .renderedMarkdown code, .info .markdown code').allTextContents();
    assert.ok(codes.includes('socket.start'), `code elements: ${codes.slice(0, 10).join(', ')}`);
    const text = await page.locator('.info').innerText();
    assert.doesNotMatch(text, /`/, 'no literal backticks');
    for (const path of ['/account/oauth2/v1/token', '/v2/socket', '/.well-known/oauth-authorization-server'])
      assert.equal((await page.locator('.opblock-summary-path', { hasText: path }).count()) > 0, true, path);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    await page.screenshot({ path: `${SHOTS}/reference-${name}.png`, fullPage: false });
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
    assert.deepEqual(refused, []);
    await page.close();
  });
}
