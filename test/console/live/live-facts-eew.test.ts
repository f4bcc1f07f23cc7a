import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Page } from 'playwright-core';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts } from './live-facts-support.ts';

/**
 * What the live view's early-warning banner says against what the VXSE45 says
 * (docs/console-live.md "EEW banner"): each expectation read from the XML, in both languages.
 */

const SAMPLE = fixture('jma-official-samples', '77_01_01_240613_VXSE45.xml');

const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());
const ingest = (xml: string) => live.ingest(xml, 'VXSE45.xml');
const signedIn = (lang: 'en' | 'ja') => live.signedIn(lang);

/** The banner's text once it shows the report of this serial. */
async function bannerAfter(page: Page, xml: string): Promise<string> {
  const banner = page.locator('#eew-banner');
  await ingest(xml);
  await banner.filter({ hasText: new RegExp(`(Report |第)${/<Serial>(\d+)</.exec(xml)![1]}`) }).waitFor();
  return (await banner.textContent()) ?? '';
}

let serial = 40;
/** The sample as a later report: its own serial, so that each is a new telegram. */
const report = (xml: string) => xml.replace('<Serial>1</Serial>', `<Serial>${++serial}</Serial>`);

test('the EEW banner states the depth of the hypocentre', async () => {
  const km = Number(/<jmx_eb:Coordinate[^>]*>[+-][\d.]+[+-][\d.]+-(\d+)\//.exec(SAMPLE)![1]) / 1000;
  assert.match(
    SAMPLE,
    new RegExp(
      `深さ\u3000${String.fromCharCode(...[...String(km)].map((d) => d.charCodeAt(0) + 0xfee0))}ｋｍ`,
    ),
  );
  for (const [lang, label] of [
    ['en', 'Depth'],
    ['ja', '深さ'],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      const text = await bannerAfter(page, report(SAMPLE));
      assert.ok(text.includes(`${label}: ${km} km`), text);
      await assertAccessible(page, `EEW banner (${lang})`);
    } finally {
      await close();
    }
  }
});

test('the EEW banner says Ｍ不明 and ごく浅い as the telegram does, never 0 km', async () => {
  const unknown = () =>
    report(SAMPLE)
      .replace(
        /<jmx_eb:Magnitude[^>]*>[^<]*<\/jmx_eb:Magnitude>/,
        '<jmx_eb:Magnitude type="Mj" condition="不明" description="Ｍ不明">NaN</jmx_eb:Magnitude>',
      )
      .replace(
        /(<jmx_eb:Coordinate description="[^"\u3000]+\u3000[^"\u3000]+)\u3000[^"]+">([+-][\d.]+[+-][\d.]+)-\d+\//,
        '$1\u3000ごく浅い">$2+0/',
      );
  assert.match(unknown(), /description="Ｍ不明"/);
  assert.match(unknown(), /ごく浅い">\+[\d.]+\+[\d.]+\+0\//);
  for (const [lang, shallow] of [
    ['en', /very shallow/],
    ['ja', /ごく浅い/],
  ] as const) {
    const { page, close } = await signedIn(lang);
    try {
      const text = await bannerAfter(page, unknown());
      assert.match(text, /Ｍ不明/);
      assert.match(text, shallow);
      assert.doesNotMatch(text, /(^|\D)0 km/);
    } finally {
      await close();
    }
  }
});
