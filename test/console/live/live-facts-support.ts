import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { launchChromium } from '../../support/chromium.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const FIXTURES = join(process.env.NAMAZU_FIXTURES ?? '../shared/fixtures', 'jma-xml');

/** A fixture telegram's XML (jma-xml/<folder>/<name>). */
export const fixture = (folder: string, name: string) => readFileSync(join(FIXTURES, folder, name), 'utf8');

/** The first group of `re` in a telegram's XML; a fixture without it fails the test. */
export function xmlText(xml: string, re: RegExp): string {
  const m = re.exec(xml);
  if (!m) throw new Error(`fixture lacks ${re}`);
  return m[1]!.trim();
}

/**
 * A server, a browser and an account contracted for earthquakes and early warnings: the pages of
 * the live view read against the telegrams ingested into it (docs/console-live.md).
 */
export class LiveFacts {
  server!: TestServer;
  private browser!: Browser;
  private user!: { email: string; password: string };

  async start(): Promise<void> {
    this.browser = await launchChromium();
    this.server = await startTestServer();
    const u = await this.server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
    });
    this.user = { email: u.account.email, password: u.password };
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    await this.server?.close();
  }

  /** Ingests the XML through the pipeline, as received at `receivedTime` (now by default); its serial. */
  async ingest(xml: string, fileName: string, receivedTime = Date.now()): Promise<number> {
    const outcome = await ingestTelegram(this.server.ctx, Buffer.from(xml), { receivedTime, fileName });
    if (!outcome.ok) throw new Error(`not ingested: ${outcome.reason}`);
    return outcome.stored.serial;
  }

  /**
   * Signed in through the sign-in page with the keyboard only, on the live view. With `clock`, the
   * page's time is Playwright's (`page.clock`): it flows, and a test can move it on at will.
   */
  async signedIn(
    lang: 'en' | 'ja',
    options: { clock?: boolean } = {},
  ): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await this.browser.newContext({ locale: lang === 'ja' ? 'ja-JP' : 'en-US' });
    if (options.clock) await context.clock.install();
    const page = await context.newPage();
    await page.goto(`${this.server.url}/console/live`);
    await page.locator('#email').focus();
    await page.keyboard.type(this.user.email);
    await page.locator('#password').focus();
    await page.keyboard.type(this.user.password);
    await Promise.all([page.waitForURL(/\/console\/live$/), page.keyboard.press('Enter')]);
    await page
      .locator('#live-status')
      .filter({ hasText: /Live|ライブ/ })
      .waitFor();
    return { page, close: () => context.close() };
  }
}
