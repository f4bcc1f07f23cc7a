import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, which `.ci/services.sh` installs. */
const CHROMIUM = '/usr/bin/chromium';
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
];

/** The real browser of the page tests; a missing Chromium fails the test with how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; the browser tests need it. ` +
        'Install it with `apt-get update && apt-get install -y chromium` (or run `eval "$(bash .ci/services.sh)"`).',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
