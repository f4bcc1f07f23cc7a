import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts, xmlText } from './live-facts-support.ts';

/**
 * The EEW banner of a live view opened while an early warning is in effect (docs/console-live.md
 * "EEW banner"): the newest report of an event received in the last three minutes shows at once,
 * unless the event was cancelled; an older one does not. JMA's 2024 VXSE45 sample of 豊後水道.
 */

const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());

const FIRST = fixture('jma-official-samples', '77_01_01_240613_VXSE45.xml');
const LATER = fixture('jma-official-samples', '77_01_20_240613_VXSE45.xml');
const CANCEL = fixture('jma-official-samples', '77_01_33_240613_VXSE45.xml');

let event = 20980101000000;
const withEvent = (xml: string, eventId: string) =>
  xml.replace(/<EventID>[^<]+<\/EventID>/, `<EventID>${eventId}</EventID>`);

/** Ingests the XML as received `ago` milliseconds before now. */
async function ingestAt(xml: string, ago: number): Promise<void> {
  const outcome = await ingestTelegram(live.server.ctx, Buffer.from(xml), {
    receivedTime: Date.now() - ago,
    fileName: 'VXSE45.xml',
  });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
}

/** The banner of a live view opened now: null when hidden. */
async function bannerOnOpen(lang: 'en' | 'ja'): Promise<{ eventId: string | null; text: string } | null> {
  const { page, close } = await live.signedIn(lang);
  try {
    const banner = page.locator('#eew-banner');
    if (await banner.isHidden()) return null;
    await assertAccessible(page, `live view opened during an EEW (${lang})`);
    return { eventId: await banner.getAttribute('data-event-id'), text: (await banner.textContent()) ?? '' };
  } finally {
    await close();
  }
}

// In this order: each test leaves the events of the one before it in effect.
test('a report received over three minutes ago shows no banner on opening', async () => {
  await ingestAt(withEvent(LATER, String(++event)), 200_000);
  assert.equal(await bannerOnOpen('en'), null);
  assert.equal(await bannerOnOpen('ja'), null);
});

test('no banner on opening once the event was cancelled; an earlier event still in effect shows', async () => {
  const cancelled = String(++event);
  await ingestAt(withEvent(FIRST, cancelled), 10_000);
  await ingestAt(withEvent(CANCEL, cancelled), 1_000);
  assert.equal(xmlText(CANCEL, /<InfoType>([^<]+)</), '取消');
  assert.equal(await bannerOnOpen('en'), null);

  // An older event still in effect shows when a newer one was cancelled.
  const running = String(++event);
  const cancelledLater = String(++event);
  await ingestAt(withEvent(FIRST, running), 30_000);
  await ingestAt(withEvent(FIRST, cancelledLater), 20_000);
  await ingestAt(withEvent(CANCEL, cancelledLater), 10_000);
  assert.equal((await bannerOnOpen('ja'))?.eventId, running);
});

test('a live view opened during an early warning shows its newest report at once', async () => {
  const eventId = String(++event);
  await ingestAt(withEvent(FIRST, eventId), 20_000);
  await ingestAt(withEvent(LATER, eventId), 5_000);
  const serial = xmlText(LATER, /<Serial>([^<]+)</);
  for (const [lang, report] of [
    ['en', `Report ${serial}`],
    ['ja', `第${serial}報`],
  ] as const) {
    const shown = await bannerOnOpen(lang);
    assert.ok(shown, `${lang}: no banner`);
    assert.equal(shown.eventId, eventId);
    assert.ok(shown.text.includes(report), shown.text);
  }
});
