import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium headless shell (package chromium-headless-shell), which `.ci/services.sh`
 * installs: the same Blink as the full browser, which playwright-core itself drives for headless
 * runs, at about two thirds of the full browser's CPU on the page tests. Debian's full Chromium
 * where only it is installed.
 */
const CHROMIUM_CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'];
// No outside network here: without the background-networking switches Chromium stalls on startup.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // JavaScript no further than V8's baseline tier: the tests' pages and axe-core run briefly, and
  // optimising them cost more than it saved (a sixth of the browser's CPU on the layout test).
  '--js-flags=--max-opt=1',
];

/** The real browser of the page tests; a missing Chromium fails the test with how to install it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = CHROMIUM_CANDIDATES.find((path) => existsSync(path));
  if (executablePath === undefined) {
    throw new Error(
      `Chromium is not installed (looked for ${CHROMIUM_CANDIDATES.join(', ')}); the browser tests need it. ` +
        'Install it with `apt-get update && apt-get install -y chromium-headless-shell` ' +
        '(or run `eval "$(bash .ci/services.sh)"`).',
    );
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is: no serious or critical violation (named with the nodes it found). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const { axe, document } = globalThis as unknown as {
      document: object;
      axe: {
        run(
          context: object,
          options: { resultTypes: string[] },
        ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    // Every node of every violation; of the rules passed, one node each (axe's detail of passes
    // was a third of its time).
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `accessibility of ${what}`,
  );
}

/**
 * A new browser context of the given size and language, signed in to the console as `who` through
 * its sign-in page, on the account page.
 */
export async function signedInPage(
  browser: Browser,
  origin: string,
  who: { email: string; password: string },
  options: { width: number; height: number; lang: 'en' | 'ja'; javaScript?: boolean },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: options.height },
    locale: options.lang === 'ja' ? 'ja-JP' : 'en-US',
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  await page.goto(`${origin}/account/signin?return_to=%2Faccount`);
  await page.locator('#email').fill(who.email);
  await page.locator('#password').fill(who.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/account'),
    page.locator('#main button[type=submit]').click(),
  ]);
  return { context, page };
}
