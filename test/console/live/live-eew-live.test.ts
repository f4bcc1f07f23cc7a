import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Page } from 'playwright-core';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts, xmlText } from './live-facts-support.ts';

/**
 * The EEW banner of a live view left open (docs/console-live.md "EEW banner"): what raises it and
 * when it clears. JMA's delivery test (VXSE42) raises none; a report keeps the banner three minutes
 * after it was received, as on opening, the page's time moved on by Playwright's clock. JMA's 2024
 * VXSE43/45 samples of 豊後水道 and its VXSE42 sample, each a new event of its own.
 */

const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());

/** docs/console-live.md: a warning is in effect for three minutes after its newest report. */
const IN_EFFECT_MS = 3 * 60_000;
/** Room for the time a report takes from its ingest to the page, on a busy machine. */
const SLACK_MS = 10_000;

const DELIVERY_TEST = fixture('jma-official-samples', '54_01_01_100514_VXSE42.xml');
const WARNING = fixture('jma-official-samples', '37_01_01_240613_VXSE43.xml');
const WARNING_CANCEL = fixture('jma-official-samples', '37_01_03_240613_VXSE43.xml');
const FORECAST = fixture('jma-official-samples', '77_01_01_240613_VXSE45.xml');
const FORECAST_LATER = fixture('jma-official-samples', '77_01_20_240613_VXSE45.xml');
const INTENSITY_FLASH = fixture('jma-official-samples', '32-35_01_01_100806_VXSE51.xml');

let event = 21000101000000;
/** The XML as a telegram of the event `eventId` (its EventID), a new one by default. */
const withEvent = (xml: string, eventId = String(++event)) =>
  xml.replace(/<EventID>[^<]+<\/EventID>/, `<EventID>${eventId}</EventID>`);

/**
 * A telegram after everything ingested so far, waited for on each page: once its line shows, the
 * stream has passed every telegram before it (the stream follows the store by serial).
 */
async function fence(...pages: Page[]): Promise<void> {
  const serial = await live.ingest(withEvent(INTENSITY_FLASH), 'VXSE51.xml');
  for (const page of pages) await page.locator(`#telegram-list li[data-serial="${serial}"]`).waitFor();
}

const banner = (page: Page) => page.locator('#eew-banner');

/** The banner's event once it shows a report of `eventId`. */
async function shown(page: Page, eventId: string, canceled = false): Promise<string> {
  const b = page.locator(`#eew-banner[data-event-id="${eventId}"]${canceled ? '.canceled' : ''}`);
  await b.waitFor();
  return (await b.textContent()) ?? '';
}

async function assertShows(page: Page, eventId: string, what: string): Promise<void> {
  assert.equal(await banner(page).isVisible(), true, `${what}: banner hidden`);
  assert.equal(await banner(page).getAttribute('data-event-id'), eventId, what);
}

async function assertCleared(page: Page, what: string): Promise<void> {
  assert.equal(await banner(page).isHidden(), true, `${what}: ${await banner(page).textContent()}`);
}

test('a delivery test (VXSE42, 緊急地震速報配信テスト) raises no banner and replaces none; its line is marked test', async () => {
  // What JMA's telegram is: a test of the early warnings' delivery, of no earthquake.
  assert.equal(xmlText(DELIVERY_TEST, /<Title>([^<]+)</), '緊急地震速報配信テスト');
  assert.equal(xmlText(DELIVERY_TEST, /<Status>([^<]+)</), '試験');
  assert.equal(xmlText(DELIVERY_TEST, /<Body[^>]*>\s*<Text>([^<]+)</), '緊急地震速報のテスト電文です。');
  assert.doesNotMatch(DELIVERY_TEST, /<Earthquake>|<Intensity>|<Forecast/);
  const title = xmlText(DELIVERY_TEST, /<Title>([^<]+)</);
  const pages = [
    { lang: 'en', mark: /test \(試験\)/, ...(await live.signedIn('en')) },
    { lang: 'ja', mark: /試験/, ...(await live.signedIn('ja')) },
  ] as const;
  try {
    // On a page without a banner: the delivery test is listed, marked test, and raises none.
    const alone = await live.ingest(DELIVERY_TEST, 'VXSE42.xml');
    await fence(...pages.map((p) => p.page));
    for (const { lang, mark, page } of pages) {
      await assertCleared(page, `${lang}: delivery test alone`);
      const line = (await page.locator(`#telegram-list li[data-serial="${alone}"]`).textContent()) ?? '';
      assert.ok(line.includes(title), `${lang}: ${line}`);
      assert.match(line, mark, `${lang}: ${line}`);
    }

    // During a real warning: the warning's banner stays as it was.
    const warning = String(++event);
    await live.ingest(withEvent(WARNING, warning), 'VXSE43.xml');
    const before = await Promise.all(pages.map(({ page }) => shown(page, warning)));
    await live.ingest(withEvent(DELIVERY_TEST), 'VXSE42.xml');
    await fence(...pages.map((p) => p.page));
    for (const [i, { lang, page }] of pages.entries()) {
      await assertShows(page, warning, `${lang}: warning after a delivery test`);
      assert.equal(await banner(page).textContent(), before[i], lang);
      assert.match((await banner(page).getAttribute('class')) ?? '', /warning/, lang);
      await assertAccessible(page, `warning after a delivery test (${lang})`);
    }
  } finally {
    for (const { close } of pages) await close();
  }
});

/**
 * Moves the page's time on to SLACK_MS before the time of a report received at `receivedTime` is
 * over (the page's clock flows with the real one, ahead of it by what earlier moves added).
 */
const justBefore = (page: Page, receivedTime: number) =>
  page.clock.fastForward(receivedTime + IN_EFFECT_MS - SLACK_MS - Date.now());
/** Then on past it. */
const justAfter = (page: Page) => page.clock.fastForward(2 * SLACK_MS);

test('a live report clears three minutes after it was received, said politely, in both languages', async () => {
  for (const [lang, over] of [
    ['en', /no longer shown.*3 minutes/],
    ['ja', /表示を終え.*3分/],
  ] as const) {
    const { page, close } = await live.signedIn(lang, { clock: true });
    try {
      const eventId = String(++event);
      const received = Date.now();
      await live.ingest(withEvent(FORECAST, eventId), 'VXSE45.xml', received);
      await shown(page, eventId);
      await justBefore(page, received);
      await assertShows(page, eventId, `${lang}: before its time is over`);
      await justAfter(page);
      await assertCleared(page, `${lang}: after its time`);
      // Not an alert: a polite status says the banner went, and why.
      const status = page.locator('[role="status"]').filter({ hasText: over });
      assert.equal(
        await status.count(),
        1,
        `${lang}: ${await page.locator('[role="status"]').allTextContents()}`,
      );
      await assertAccessible(page, `banner cleared (${lang})`);

      // The next warning takes the banner again, and the status of the last one goes.
      const next = String(++event);
      await live.ingest(withEvent(FORECAST, next), 'VXSE45.xml');
      await shown(page, next);
      assert.equal(await status.count(), 0, lang);
    } finally {
      await close();
    }
  }
});

test('the time counts from when the report was received, not from when it reached the page', async () => {
  const { page, close } = await live.signedIn('en', { clock: true });
  try {
    // Received two minutes ago (stored late, or sent again on a reconnect): one minute is left.
    const late = String(++event);
    const received = Date.now() - 120_000;
    await live.ingest(withEvent(FORECAST, late), 'VXSE45.xml', received);
    await shown(page, late);
    await justBefore(page, received);
    await assertShows(page, late, 'a report received two minutes ago, just before its time');
    await justAfter(page);
    await assertCleared(page, 'a report received two minutes ago, after its time');

    // Received over three minutes ago: its time is over before it arrives, and it raises nothing.
    await live.ingest(withEvent(FORECAST), 'VXSE45.xml', Date.now() - IN_EFFECT_MS - SLACK_MS);
    await fence(page);
    await assertCleared(page, 'a report whose time was over when it arrived');
  } finally {
    await close();
  }
});

test('each newer report of the event restarts the time; a cancellation (取消) is said, then clears the same way', async () => {
  const { page, close } = await live.signedIn('en', { clock: true });
  try {
    const eventId = String(++event);
    await live.ingest(withEvent(FORECAST, eventId), 'VXSE45.xml');
    await shown(page, eventId);
    await page.clock.fastForward(IN_EFFECT_MS / 2);
    const serial = xmlText(FORECAST_LATER, /<Serial>([^<]+)</);
    const newer = Date.now();
    await live.ingest(withEvent(FORECAST_LATER, eventId), 'VXSE45.xml', newer);
    await banner(page)
      .filter({ hasText: `Report ${serial}` })
      .waitFor();
    await justBefore(page, newer);
    await assertShows(page, eventId, 'within three minutes of the newer report');
    await justAfter(page);
    await assertCleared(page, 'three minutes after the newer report');

    // A cancellation says the warning was withdrawn at once (the alert), then goes with its time.
    const cancelled = String(++event);
    assert.equal(xmlText(WARNING_CANCEL, /<InfoType>([^<]+)</), '取消');
    await live.ingest(withEvent(WARNING, cancelled), 'VXSE43.xml');
    await shown(page, cancelled);
    const cancelledAt = Date.now();
    await live.ingest(withEvent(WARNING_CANCEL, cancelled), 'VXSE43.xml', cancelledAt);
    assert.match(await shown(page, cancelled, true), /cancelled/);
    await justBefore(page, cancelledAt);
    await assertShows(page, cancelled, 'the cancellation within its time');
    await justAfter(page);
    await assertCleared(page, 'the cancellation after its time');
  } finally {
    await close();
  }
});

test('a cancellation of another event leaves the warning shown, as a page opened then shows it', async () => {
  const { page, close } = await live.signedIn('en');
  try {
    const shownEvent = String(++event);
    await live.ingest(withEvent(WARNING, shownEvent), 'VXSE43.xml');
    await shown(page, shownEvent);
    // Another earthquake's warning, withdrawn: JMA's cancellation names that event alone.
    await live.ingest(withEvent(WARNING_CANCEL), 'VXSE43.xml');
    await fence(page);
    await assertShows(page, shownEvent, 'after the cancellation of another event');
    assert.equal(await banner(page).getAttribute('class'), 'eew warning');
    const reopened = await live.signedIn('en');
    try {
      await shown(reopened.page, shownEvent);
    } finally {
      await reopened.close();
    }
  } finally {
    await close();
  }
});

test('a banner shown on opening clears when its time is over, as a page opened then would show none', async () => {
  const eventId = String(++event);
  const received = Date.now() - 120_000;
  await live.ingest(withEvent(FORECAST, eventId), 'VXSE45.xml', received);
  const { page, close } = await live.signedIn('ja', { clock: true });
  try {
    await shown(page, eventId);
    await justBefore(page, received);
    await assertShows(page, eventId, 'opened 2 minutes after the report, just before its time');
    await justAfter(page);
    await assertCleared(page, 'opened 2 minutes after the report, after its time');
  } finally {
    await close();
  }
});
