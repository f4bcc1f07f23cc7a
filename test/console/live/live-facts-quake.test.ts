import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Page } from 'playwright-core';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts, xmlText } from './live-facts-support.ts';

/**
 * What the earthquake pages say against what the telegrams say (docs/console-live.md): fixture XML
 * ingested through the pipeline, each expectation read from the XML, the pages read in Chromium in
 * both languages.
 */

const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());
const ingest = (xml: string, fileName: string) => live.ingest(xml, fileName);
const signedIn = (lang: 'en' | 'ja') => live.signedIn(lang);

/** The value of the event page's fact named `label` (a `<dt>` of the facts list). */
const fact = (page: Page, label: string) =>
  page
    .locator('#quake dl.facts dt', { hasText: label })
    .locator('xpath=following-sibling::dd[1]')
    .textContent();

test('a very shallow hypocentre (ごく浅い) is said in words, not as 0 km', async () => {
  const xml = fixture('real-operational', '20210216071046_0_VXSE53_270000.xml');
  const coordinate = xmlText(xml, /<jmx_eb:Coordinate description="([^"]+)"/);
  assert.match(coordinate, /ごく浅い$/);
  const eventId = xmlText(xml, /<EventID>([^<]+)</);
  await ingest(xml, 'shallow_VXSE53.xml');
  for (const [lang, label, words] of [
    ['en', 'Depth', /very shallow/],
    ['ja', '深さ', /ごく浅い/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      await page.goto(`${live.server.url}/console/earthquakes/${eventId}`);
      const depth = (await fact(page, label)) ?? '';
      assert.match(depth, words, `${lang}: ${depth}`);
      assert.doesNotMatch(depth, /(^|\D)0 ?km/, `${lang}: ${depth}`);
      await assertAccessible(page, `event page (${lang})`);
    } finally {
      await close();
    }
  }
});

test('a magnitude over 8 not yet determined says Ｍ８を超える巨大地震', async () => {
  const xml = fixture('jma-official-samples', '33_12_01_240613_VXSE52.xml');
  assert.equal(xmlText(xml, /<Status>([^<]+)</), '通常');
  const description = xmlText(xml, /<jmx_eb:Magnitude[^>]*description="([^"]+)"/);
  const eventId = xmlText(xml, /<EventID>([^<]+)</);
  await ingest(xml, 'm8_VXSE52.xml');
  for (const lang of ['en', 'ja'] as const) {
    const { page, close } = await signedIn(lang);
    try {
      await page.goto(`${live.server.url}/console/earthquakes/${eventId}`);
      assert.match((await page.locator('#quake-magnitude').textContent()) ?? '', new RegExp(description));
    } finally {
      await close();
    }
  }
});

test('an intensity flash alone (VXSE51) does not call its observation time the origin time', async () => {
  const xml = fixture('jma-official-samples', '32-35_04_01_100831_VXSE51.xml');
  assert.equal(xmlText(xml, /<Status>([^<]+)</), '通常');
  assert.doesNotMatch(xml, /<OriginTime>/);
  const eventId = xmlText(xml, /<EventID>([^<]+)</);
  await ingest(xml, 'flash_VXSE51.xml');
  const { page, close } = await signedIn('en');
  try {
    await page.goto(`${live.server.url}/console/earthquakes/${eventId}`);
    const labels = await page.locator('#quake dl.facts dt').allTextContents();
    assert.ok(!labels.includes('Origin time'), labels.join(', '));
  } finally {
    await close();
  }
});

test('a region whose stations have all not yet reported 5弱 or above is listed as such, and so are such stations', async () => {
  // JMA leaves out an area's MaxInt when none of its stations' intensities came in, only
  // 震度５弱以上未入電 (production: "入電した震度がない場合は出現しない"); no sample has one, so a
  // real report's region is made so.
  const source = fixture('jma-official-samples', '32-35_06_03_240613_VXSE53.xml');
  const region = '<Area><Name>秋田県内陸南部</Name><Code>233</Code>';
  const xml = source
    .replace(`${region}<MaxInt>5+</MaxInt>`, `${region}<Condition>震度５弱以上未入電</Condition>`)
    .replace(/<EventID>[^<]+<\/EventID>/, '<EventID>20991231235959</EventID>');
  assert.notEqual(xml, source);
  assert.match(xml, /<Int>震度５弱以上未入電<\/Int>/, 'stations not yet reported');
  await ingest(xml, 'unreported_VXSE53.xml');
  for (const [lang, words] of [
    ['en', '5- or above, not yet reported'],
    ['ja', '震度５弱以上未入電'],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      await page.goto(`${live.server.url}/console/earthquakes/20991231235959`);
      const listed = page.locator('#quake ul.areas li[data-code="233"]');
      assert.equal(await listed.count(), 1, `${lang}: the region is listed`);
      assert.match((await listed.textContent()) ?? '', new RegExp(`秋田県内陸南部.*${words}`));
      // Its stations, and the report's others not yet reported: nowhere a raw code, in the lists
      // nor in the names of the map's symbols.
      const section = (await page.locator('#quake').textContent()) ?? '';
      assert.doesNotMatch(section, /!5-/, lang);
      await assertAccessible(page, `unreported region (${lang})`);
    } finally {
      await close();
    }
  }
});

test('a cancelled (取消) report takes its earthquake off the live view', async () => {
  const issued = fixture('jma-official-samples', '32-35_06_01_240613_VXSE52.xml');
  const cancel = fixture('jma-official-samples', '32-35_06_02_100915_VXSE52.xml');
  assert.equal(xmlText(cancel, /<InfoType>([^<]+)</), '取消');
  const eventId = xmlText(issued, /<EventID>([^<]+)</);
  assert.equal(xmlText(cancel, /<EventID>([^<]+)</), eventId);
  const { page, close } = await signedIn('en');
  try {
    await ingest(issued, 'issued_VXSE52.xml');
    await page.locator(`#quake[data-event-id="${eventId}"]`).waitFor({ timeout: 5000 });
    const serial = await ingest(cancel, 'cancel_VXSE52.xml');
    await page.locator(`#telegram-list li[data-serial="${serial}"]`).waitFor({ timeout: 5000 });
    await page.locator(`#quake:not([data-event-id="${eventId}"])`).waitFor({ timeout: 5000 });
    // A reload agrees with the page updated in place.
    await page.reload();
    assert.notEqual(await page.locator('#quake').getAttribute('data-event-id'), eventId);
  } finally {
    await close();
  }
});

test('an earthquake page that answers late never replaces a newer earthquake on the live view', async () => {
  const first = fixture('jma-official-samples', '32-35_01_03_240613_VXSE53.xml');
  const second = fixture('jma-official-samples', '32-35_07_06_240613_VXSE53.xml');
  const firstId = xmlText(first, /<EventID>([^<]+)</);
  const secondId = xmlText(second, /<EventID>([^<]+)</);
  assert.notEqual(firstId, secondId);
  const { page, close } = await signedIn('en');
  try {
    // The first event's page answers only after the second's has been shown.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    await page.route(`**/console/earthquakes/${firstId}`, async (route) => {
      await firstHeld;
      await route.continue();
    });
    await ingest(first, 'first_VXSE53.xml');
    await ingest(second, 'second_VXSE53.xml');
    await page.locator(`#quake[data-event-id="${secondId}"]`).waitFor({ timeout: 5000 });
    releaseFirst();
    const firstServed = page.waitForResponse(`**/console/earthquakes/${firstId}`);
    await firstServed;
    await page.waitForTimeout(300);
    assert.equal(await page.locator('#quake').getAttribute('data-event-id'), secondId);
    // A reload agrees with the page updated in place.
    await page.unrouteAll();
    await page.reload();
    assert.equal(await page.locator('#quake').getAttribute('data-event-id'), secondId);
  } finally {
    await close();
  }
});
