import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Page } from 'playwright-core';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts, xmlText } from './live-facts-support.ts';

/**
 * What the live view says of early warnings and their marks against what the telegrams say
 * (docs/console-live.md "EEW banner", "Newest telegrams"): JMA's 2024 VXSE43/45 samples, changed
 * only where a test says so, each expectation read from the XML, in both languages.
 */

const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());
const signedIn = (lang: 'en' | 'ja') => live.signedIn(lang);

const SAMPLE = (name: string) => fixture('jma-official-samples', name);

let event = 20990101000000;
/** The XML as a report of a new event of its own (EventID), so that each test's banner is its own. */
function asNewEvent(xml: string): { xml: string; eventId: string } {
  const eventId = String(++event);
  return { xml: xml.replace(/<EventID>[^<]+<\/EventID>/, `<EventID>${eventId}</EventID>`), eventId };
}

/** Ingests the XML and answers the banner's text once it shows a report of the event. */
async function bannerOf(page: Page, xml: string, eventId: string, canceled = false): Promise<string> {
  await live.ingest(xml, 'VXSE4x.xml');
  const banner = page.locator(`#eew-banner[data-event-id="${eventId}"]${canceled ? '.canceled' : ''}`);
  await banner.waitFor();
  return (await banner.textContent()) ?? '';
}

test('a training (訓練) telegram is marked training, a test (試験) one test: in the list and the banner', async () => {
  const sample = SAMPLE('77_01_01_240613_VXSE45.xml');
  assert.equal(xmlText(sample, /<Status>([^<]+)</), '通常');
  for (const [lang, training, testing] of [
    ['en', /training \(訓練\)/, /test \(試験\)/],
    ['ja', /訓練/, /試験/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      for (const status of ['訓練', '試験'] as const) {
        const { xml, eventId } = asNewEvent(
          sample.replace('<Status>通常</Status>', `<Status>${status}</Status>`),
        );
        assert.equal(xmlText(xml, /<Status>([^<]+)</), status);
        const [shown, other] = status === '訓練' ? [training, testing] : [testing, training];
        const banner = await bannerOf(page, xml, eventId);
        assert.match(banner, shown, `${lang} ${status} banner: ${banner}`);
        assert.doesNotMatch(banner, other, `${lang} ${status} banner: ${banner}`);
        const line = await page.locator('#telegram-list li').first().textContent();
        assert.match(line ?? '', shown, `${lang} ${status} line: ${line}`);
        assert.doesNotMatch(line ?? '', other, `${lang} ${status} line: ${line}`);
      }
      // The lines the server renders when the page opens say the same.
      await page.reload();
      const lines = await page.locator('#telegram-list li').allTextContents();
      assert.match(lines[0] ?? '', testing, `${lang} reloaded: ${lines[0]}`);
      assert.doesNotMatch(lines[0] ?? '', training, `${lang} reloaded: ${lines[0]}`);
      assert.match(lines[1] ?? '', training, `${lang} reloaded: ${lines[1]}`);
      assert.doesNotMatch(lines[1] ?? '', testing, `${lang} reloaded: ${lines[1]}`);
      await assertAccessible(page, `marked telegrams (${lang})`);
    } finally {
      await close();
    }
  }
});

/**
 * The sample's serial 20 (豊後水道, Mj 6.6, depth 50 km, ForecastInt 6-) as JMA writes a warning
 * whose hypocentre it assumes (the PLUM method alone): Earthquake/Condition 仮定震源要素, the
 * epicentre's and depth's accuracy rank 1, magnitude calculation rank 8, and the fixed values
 * M1.0 and 10 km that stand for no estimate — as the real VXSE45 of 2023-05-05 serial 6 (富山湾,
 * dmdata-json/real-telegrams/vxse45-temporalhypocenter.json) has them, ForecastInt 6- to over.
 */
function assumedHypocentre(xml: string): string {
  return xml
    .replace(/(<OriginTime>[^<]+<\/OriginTime>)/, '$1<Condition>仮定震源要素</Condition>')
    .replace(/深さ\u3000５０ｋｍ">([+-][\d.]+[+-][\d.]+)-50000\//, '深さ\u3000１０ｋｍ">$1-10000/')
    .replace(
      /<Accuracy>.*?<\/Accuracy>/,
      '<Accuracy><Epicenter rank="1" rank2="1">NaN</Epicenter><Depth rank="1">NaN</Depth><MagnitudeCalculation rank="8">NaN</MagnitudeCalculation><NumberOfMagnitudeCalculation>1</NumberOfMagnitudeCalculation></Accuracy>',
    )
    .replace(
      /<jmx_eb:Magnitude[^>]*>[^<]*<\/jmx_eb:Magnitude>/,
      '<jmx_eb:Magnitude type="Mj" description="Ｍ１．０">1.0</jmx_eb:Magnitude>',
    )
    .replace(
      '<ForecastInt><From>6-</From><To>6-</To></ForecastInt>',
      '<ForecastInt><From>6-</From><To>over</To></ForecastInt>',
    );
}

test('an assumed hypocentre (仮定震源要素) is said so, without the depth, magnitude and origin time JMA fills in', async () => {
  const sample = SAMPLE('77_01_20_240613_VXSE45.xml');
  const { xml, eventId } = asNewEvent(assumedHypocentre(sample));
  assert.equal(xmlText(xml, /<Condition>([^<]+)</), '仮定震源要素');
  assert.match(xml, /深さ\u3000１０ｋｍ">\+33\.2\+132\.4-10000\//);
  assert.match(xml, /<MagnitudeCalculation rank="8">/);
  assert.match(xml, /description="Ｍ１．０">1\.0</);
  const place = xmlText(xml, /<Hypocenter><Area><Name>([^<]+)</);
  for (const [lang, assumed, labels] of [
    ['en', /assumed/i, /Depth|Magnitude|Origin time/],
    ['ja', /仮定震源要素/, /深さ|マグニチュード|発生時刻/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      const text = await bannerOf(page, xml, eventId);
      assert.ok(text.includes(place), text);
      assert.match(text, assumed, text);
      assert.doesNotMatch(text, labels, text);
      assert.doesNotMatch(text, /10 km|1\.0|23:14:47/, text);
      await assertAccessible(page, `assumed hypocentre (${lang})`);
    } finally {
      await close();
    }
  }
});

test('the predicted intensity is said as JMA classes it: 6弱, 6弱以上 (over), 不明, and the long-period class', async () => {
  const sample = SAMPLE('77_01_20_240613_VXSE45.xml');
  assert.match(
    sample,
    /<Forecast>.*?<ForecastInt><From>6-<\/From><To>6-<\/To><\/ForecastInt><ForecastLgInt><From>2<\/From><To>2<\/To>/,
  );
  const exact = asNewEvent(sample);
  const over = asNewEvent(
    sample.replace(
      '<ForecastInt><From>6-</From><To>6-</To></ForecastInt>',
      '<ForecastInt><From>6-</From><To>over</To></ForecastInt>',
    ),
  );
  const unknown = asNewEvent(
    sample.replace(
      '<ForecastInt><From>6-</From><To>6-</To></ForecastInt>',
      '<ForecastInt><From>不明</From><To>不明</To></ForecastInt>',
    ),
  );
  for (const [lang, sixLower, sixLowerOrAbove, notKnown, longPeriod] of [
    [
      'en',
      /: 6 Lower(?! or)/,
      /: 6 Lower or above/,
      /intensity: unknown/,
      /long-period ground motion class: 2/i,
    ],
    ['ja', /: 6弱(?!以上)/, /: 6弱以上/, /震度: 不明/, /長周期地震動階級: 2/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      const seen = await bannerOf(
        page,
        exact.xml.replace(/<Serial>\d+</, `<Serial>${lang === 'en' ? 20 : 21}<`),
        exact.eventId,
      );
      assert.match(seen, sixLower, seen);
      assert.doesNotMatch(seen, /6-/, seen);
      assert.match(seen, longPeriod, seen);
      const overText = await bannerOf(
        page,
        over.xml.replace(/<Serial>\d+</, `<Serial>${lang === 'en' ? 20 : 21}<`),
        over.eventId,
      );
      assert.match(overText, sixLowerOrAbove, overText);
      assert.doesNotMatch(overText, /over|\+ ?$|– \+/, overText);
      const unknownText = await bannerOf(
        page,
        unknown.xml.replace(/<Serial>\d+</, `<Serial>${lang === 'en' ? 20 : 21}<`),
        unknown.eventId,
      );
      assert.match(unknownText, notKnown, unknownText);
    } finally {
      await close();
    }
  }
});

test('a final report (最終報) says so; a cancellation (取消) of a warning claims neither forecast nor warning', async () => {
  const last = SAMPLE('77_01_32_240613_VXSE45.xml');
  const { xml, eventId } = asNewEvent(
    last.replace(
      '</Comments></Body>',
      '</Comments><NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</NextAdvisory></Body>',
    ),
  );
  assert.match(xml, /<NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</);
  const warning = SAMPLE('37_01_02_240613_VXSE43.xml');
  const cancel = SAMPLE('37_01_03_240613_VXSE43.xml');
  assert.equal(xmlText(cancel, /<InfoType>([^<]+)</), '取消');
  assert.equal(xmlText(cancel, /<EventID>([^<]+)</), xmlText(warning, /<EventID>([^<]+)</));
  for (const [lang, final, forecastOrWarning, canceled] of [
    ['en', /final report/i, /\((forecast|warning)\)/, /cancelled/],
    ['ja', /最終報/, /（(予報|警報)）/, /取り消/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      const serial = lang === 'en' ? '32' : '33';
      const text = await bannerOf(page, xml.replace('<Serial>32<', `<Serial>${serial}<`), eventId);
      assert.match(text, final, text);
      const pair = asNewEvent(warning);
      const shown = await bannerOf(page, pair.xml, pair.eventId);
      assert.doesNotMatch(shown, final, shown);
      const canceledText = await bannerOf(
        page,
        cancel.replace(/<EventID>[^<]+</, `<EventID>${pair.eventId}<`),
        pair.eventId,
        true,
      );
      assert.match(canceledText, canceled, canceledText);
      assert.doesNotMatch(canceledText, forecastOrWarning, canceledText);
      await assertAccessible(page, `cancelled EEW (${lang})`);
    } finally {
      await close();
    }
  }
});
