/**
 * Station intensities on the console's map (docs/console-live.md "Map data"): an event page of a
 * real VXSE53 in a real browser, with one marker per station whose position JMA's list gives, each
 * with the intensity the XML gives. Expected values are read from the XML and from JMA's list.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { type Browser } from 'playwright-core';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { launchChromium } from '../../support/chromium.ts';
import { fixture } from '../../support/fixtures.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { publishedStations } from '../../parameter/published.ts';

const SHOTS = 'test-output/screenshots';
let server: TestServer;
let browser: Browser;
let user: { email: string; password: string };

before(async () => {
  browser = await launchChromium();
  server = await startTestServer();
  const u = await server.createAccount({ contracts: ['telegram.earthquake'] });
  user = { email: u.account.email, password: u.password };
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Every IntensityStation of the XML: its code, name and intensity class, in the XML's order. */
function xmlStations(xml: string): { code: string; name: string; int: string }[] {
  return [...xml.matchAll(/<IntensityStation>([\s\S]*?)<\/IntensityStation>/g)].map(([, s]) => ({
    name: /<Name>([^<]+)</.exec(s!)![1]!,
    code: /<Code>([^<]+)</.exec(s!)![1]!,
    int: /<Int>([^<]+)</.exec(s!)![1]!.trim(),
  }));
}

async function ingest(path: string, name: string): Promise<string> {
  const xml = readFileSync(path, 'utf8');
  const outcome = await ingestTelegram(server.ctx, Buffer.from(xml), {
    receivedTime: Date.now(),
    fileName: name,
  });
  assert.ok(outcome.ok, `${name}: ${!outcome.ok && outcome.reason}`);
  return /<EventID>([^<]+)</.exec(xml)![1]!;
}

async function signedIn(options: { locale: string; width: number }) {
  const context = await browser.newContext({
    locale: options.locale,
    viewport: { width: options.width, height: 900 },
  });
  const page = await context.newPage();
  await page.goto(`${server.url}/console/live`);
  await page.locator('#email').fill(user.email);
  await page.locator('#password').fill(user.password);
  await Promise.all([page.waitForURL(/\/console\/live$/), page.locator('#main button[type=submit]').click()]);
  return { context, page };
}

test('an event page plots each station of the newest VXSE53 at its position, with the XML’s intensity', async () => {
  const file = '20210217190220_0_VXSE53_010000.xml';
  const path = fixture('real', file);
  const xml = readFileSync(path, 'utf8');
  const eventId = await ingest(path, file);
  const stations = xmlStations(xml);
  const known = new Set(publishedStations().map((s) => s.code));
  const placed = stations.filter((s) => known.has(s.code));
  const unplaced = stations.filter((s) => !known.has(s.code));
  // Codes change as stations move or close: a 2021 report names some stations today's list lacks.
  assert.ok(placed.length > 150 && unplaced.length > 0, `${placed.length} placed, ${unplaced.length} not`);

  for (const [locale, width] of [
    ['en-US', 1100],
    ['ja-JP', 390],
  ] as const) {
    const { context, page } = await signedIn({ locale, width });
    try {
      await page.goto(`${server.url}/console/earthquakes/${eventId}`);
      const markers = await page
        .locator('#quake-map circle.station')
        .evaluateAll((cs) => cs.map((c) => [c.getAttribute('data-code'), c.getAttribute('data-int')]));
      assert.deepEqual(
        markers.sort(),
        placed.map((s) => [s.code, s.int]).sort(),
        'one marker per station with a known position, with its intensity',
      );
      const listed = await page
        .locator('#unplaced-stations li')
        .evaluateAll((ls) => ls.map((l) => [l.getAttribute('data-code'), l.getAttribute('data-int')]));
      assert.deepEqual(listed.sort(), unplaced.map((s) => [s.code, s.int]).sort(), 'the others are listed');
      // The legend names the scale and JMA is credited as the positions' source.
      assert.equal(await page.locator('.legend li').count(), 10);
      assert.match((await page.locator('.map-credit').textContent()) ?? '', /出典：気象庁/);
      // At phone width the map still fits the screen.
      const box = await page.locator('#quake-map').boundingBox();
      assert.ok(box && box.width <= width, `map width ${box?.width} at ${width}`);
      await page.screenshot({ path: `${SHOTS}/event-stations-${locale}.png`, fullPage: true });
    } finally {
      await context.close();
    }
  }
});

test('the live view with the largest official VXSE53 (2,400 stations) stays under 400 KB gzip', async () => {
  const file = '32-39_11_05_240613_VXSE53.xml';
  const xml = readFileSync(fixture('official', file), 'utf8');
  const stations = xmlStations(xml);
  assert.equal(stations.length, 2400);
  const known = new Set(publishedStations().map((s) => s.code));
  // A later event than the one above, so the live view shows it.
  const later = xml.replace(/<EventID>[^<]+</, '<EventID>29991231235959<');
  const outcome = await ingestTelegram(server.ctx, Buffer.from(later), {
    receivedTime: Date.now(),
    fileName: file,
  });
  assert.ok(outcome.ok);
  const { context, page } = await signedIn({ locale: 'en-US', width: 1100 });
  try {
    const response = await page.goto(`${server.url}/console/live`);
    const html = await response!.text();
    const markers = await page.locator('#quake-map circle.station').count();
    assert.equal(markers, stations.filter((s) => known.has(s.code)).length);
    const gzipped = gzipSync(html).length;
    console.log(`# live view with ${markers} station markers: ${html.length} B, ${gzipped} B gzip`);
    assert.ok(gzipped < 400 * 1024);
  } finally {
    await context.close();
  }
});
