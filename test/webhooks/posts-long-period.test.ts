// Long-period ground motion (長周期地震動階級) in the ready-made posts: the observed classes of a VXSE62
// and the forecast class of an early warning (VXSE45), checked against every such shared fixture.
// Every expected value is read from the XML itself (by the small readers below), never from the
// code's output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { allRestXmlFixtures, allXmlFixtures, fixture } from '../support/fixtures.ts';
import { renderPost } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { describe as describePost } from '../../src/webhooks/wording.ts';
import { summaryOfXml } from './posts-support.ts';

const fixturesOf = (type: string) =>
  [...allXmlFixtures(), ...allRestXmlFixtures()].filter((path) => path.endsWith(`_${type}.xml`));

const field = (summary: TelegramSummary, lang: 'ja' | 'en', name: string) =>
  describePost(summary, lang).fields.find((f) => f.name === name)?.value;

/** The text of the first `<name>` element in `xml` (trimmed), or null. */
const first = (xml: string, name: string) =>
  new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1]?.trim() ?? null;

/** Each `<name>…</name>` element's inner XML, in document order. */
const all = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);

const fullWidthDigits = (text: string) =>
  text.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));

// ---- the observed classes (VXSE62) ----

interface ObservedRegion {
  name: string;
  maxInt: string | null;
  maxLgInt: string;
}

function observedRegions(xml: string): ObservedRegion[] {
  const observation = all(xml, 'Observation')[0]!;
  return all(observation, 'Area').map((area) => ({
    name: first(area, 'Name')!,
    maxInt: first(area, 'MaxInt'),
    maxLgInt: first(area, 'MaxLgInt')!,
  }));
}

test('a VXSE62 post shows the maximum long-period class and the regions of each class, in both languages', () => {
  // 78_01_01_240613 VXSE62: Observation MaxInt 5-, MaxLgInt 3, LgCategory 4; areas 宮城県北部 (MaxInt 4,
  // MaxLgInt 3), 青森県津軽北部 (3, 1), 青森県三八上北 (4, 1), 岩手県内陸北部 (5-, 1), 岩手県内陸南部 (3, 1).
  // Headline: 長周期地震動階級３を観測 … 最大震度は４以下でしたが、大きな長周期地震動階級（階級３以上）を観測 … 宮城県北部.
  const xml = readFileSync(fixture('official', '78_01_01_240613_VXSE62.xml'));
  const s = summaryOfXml(xml, '78_01_01_240613_VXSE62.xml');
  assert.ok(s);
  const ja = describePost(s, 'ja');
  assert.equal(ja.gist, '岩手県沖 M6.3 最大長周期地震動階級3 最大震度5弱');
  assert.equal(field(s, 'ja', '最大長周期地震動階級'), '階級3');
  assert.equal(field(s, 'ja', '最大震度'), '震度5弱');
  assert.equal(field(s, 'ja', '長周期地震動階級3'), '宮城県北部');
  assert.equal(
    field(s, 'ja', '長周期地震動階級1'),
    '青森県津軽北部、青森県三八上北、岩手県内陸北部、岩手県内陸南部',
  );
  // LgCategory 4: class 3 or more observed where the intensity was 4 or less (宮城県北部, MaxInt 4).
  assert.equal(field(s, 'ja', '震度4以下で長周期地震動階級3以上'), '宮城県北部');
  // The areas of a VXSE62 are those with a long-period class: their intensities are no list of
  // every region of that intensity (the VXSE53 has those), so no "震度N" field stands for them.
  assert.deepEqual(
    ja.fields.filter((f) => f.name.startsWith('震度')).map((f) => f.name),
    ['震度4以下で長周期地震動階級3以上'],
  );

  const en = describePost(s, 'en');
  assert.equal(en.gist, '岩手県沖, M6.3, Max long-period class 3, Max intensity Shindo 5-');
  assert.equal(field(s, 'en', 'Max long-period class'), 'Class 3');
  assert.equal(field(s, 'en', 'Long-period class 3'), '宮城県北部');
  assert.equal(
    field(s, 'en', 'Long-period class 1'),
    '青森県津軽北部, 青森県三八上北, 岩手県内陸北部, 岩手県内陸南部',
  );
  assert.equal(field(s, 'en', 'Long-period class 3 or more at Shindo 4 or less'), '宮城県北部');
  assert.equal(en.headline, null, 'the fields say what the Japanese headline says');

  // Every format carries it, in the notification text too.
  const discord = JSON.parse(renderPost('discord', s, 'en').body as string);
  assert.match(discord.content, /Max long-period class 3/);
  assert.ok(discord.embeds[0].fields.some((f: { name: string }) => f.name === 'Long-period class 3'));
  assert.match(renderPost('ntfy', s, 'ja').body as string, /最大長周期地震動階級：階級3/);
  assert.match(JSON.parse(renderPost('slack', s, 'ja').body as string).text, /最大長周期地震動階級3/);
});

test('a long-period class of 3 or more makes a VXSE62 post high, whatever the intensity', () => {
  // 78_01_01_240613 with its Observation MaxInt lowered to 4 (as JMA's LgCategory 4 allows: class 3
  // where the intensity was 4 or less).
  const xml = readFileSync(fixture('official', '78_01_01_240613_VXSE62.xml'), 'utf8');
  const observation = /<Observation>[\s\S]*?<MaxInt>5-<\/MaxInt>/;
  assert.match(xml, observation);
  const lowered = xml.replace(observation, (m) => m.replace('<MaxInt>5-</MaxInt>', '<MaxInt>4</MaxInt>'));
  const s = summaryOfXml(Buffer.from(lowered), '78_01_01_240613_VXSE62.xml');
  assert.ok(s);
  assert.equal(field(s, 'ja', '最大震度'), '震度4');
  assert.equal(s.severity, 'high');
  assert.equal(renderPost('ntfy', s, 'ja').headers.priority, 'high');
});

test('every VXSE62 fixture: the maximum class and the regions of the strongest classes as the XML has them', () => {
  const files = fixturesOf('VXSE62');
  assert.ok(files.length >= 2, files.join());
  for (const path of files) {
    const xml = readFileSync(path, 'utf8');
    const s = summaryOfXml(Buffer.from(xml), path.split('/').pop());
    assert.ok(s, path);
    const observation = all(xml, 'Observation')[0]!;
    // The nationwide maximum comes before the first Pref (JMA: MaxInt, MaxLgInt, LgCategory, Pref…).
    const maxLgInt = first(observation.split('<Pref>')[0]!, 'MaxLgInt')!;
    const category = first(observation, 'LgCategory');
    assert.equal(field(s, 'ja', '最大長周期地震動階級'), `階級${maxLgInt}`, path);
    assert.equal(field(s, 'en', 'Max long-period class'), `Class ${maxLgInt}`, path);
    const regions = observedRegions(xml);
    const classes = [...new Set(regions.map((r) => r.maxLgInt).filter((c) => c !== '0'))].sort().reverse();
    for (const cls of classes.slice(0, 3)) {
      const names = regions.filter((r) => r.maxLgInt === cls).map((r) => r.name);
      assert.deepEqual(new Set(field(s, 'ja', `長周期地震動階級${cls}`)!.split('、')), new Set(names), path);
      assert.deepEqual(
        new Set(field(s, 'en', `Long-period class ${cls}`)!.split(', ')),
        new Set(names),
        path,
      );
    }
    // JMA's Headline lists the same classes and regions (長周期地震動階級３: 宮城県北部, …).
    for (const item of all(xml.split('<Body')[0]!, 'Item')) {
      const cls = fullWidthDigits(first(item, 'Name')!).replace('長周期地震動階級', '');
      const names = all(item, 'Area').map((area) => first(area, 'Name')!);
      assert.deepEqual(new Set(field(s, 'ja', `長周期地震動階級${cls}`)!.split('、')), new Set(names), path);
    }
    if (category === '4') {
      const low = regions.filter(
        (r) => Number(r.maxLgInt) >= 3 && ['1', '2', '3', '4'].includes(r.maxInt ?? ''),
      );
      assert.deepEqual(
        field(s, 'ja', '震度4以下で長周期地震動階級3以上')!.split('、'),
        low.map((r) => r.name),
        path,
      );
    }
  }
});

// ---- the forecast class (EEW) ----

/** JMA's range as the posts write it: `word` names a class ("震度5弱", "階級2"), `bare` without its word. */
const rangeText = (
  range: { from: string; to: string },
  word: (c: string) => string,
  bare: (c: string) => string,
  [orMore, between, unknown]: [string, string, string],
) =>
  range.from === '不明'
    ? unknown
    : range.to === 'over'
      ? `${word(range.from)}${orMore}`
      : range.from === range.to || range.to === '不明'
        ? word(range.from)
        : `${word(range.from)}${between}${bare(range.to)}`;
const JA: [string, string, string] = ['以上', '〜', '不明'];
const EN: [string, string, string] = [' or more', ' to ', 'unknown'];

test('an EEW post shows the forecast long-period class beside the forecast intensity: one class, "or more", unknown', () => {
  // 77_01_09_240613 VXSE45: Forecast ForecastInt 5+/5+, ForecastLgInt 2/2.
  const path = fixture('rest', '77_01_09_240613_VXSE45.xml');
  const xml = readFileSync(path, 'utf8');
  const s = summaryOfXml(Buffer.from(xml), '77_01_09_240613_VXSE45.xml');
  assert.ok(s);
  const names = describePost(s, 'ja').fields.map((f) => f.name);
  assert.deepEqual(names.slice(0, 2), ['最大予測震度', '予想最大長周期地震動階級']);
  assert.equal(field(s, 'ja', '予想最大長周期地震動階級'), '階級2');
  assert.equal(field(s, 'en', 'Max forecast long-period class'), 'Class 2');

  // The same telegram as JMA writes "class 3 or more" (To over) and an unknown class (不明).
  const forecastLg = '<ForecastLgInt><From>2</From><To>2</To></ForecastLgInt><Appendix>';
  assert.ok(xml.includes(forecastLg));
  const withRange = (from: string, to: string) => {
    const changed = xml.replace(
      forecastLg,
      `<ForecastLgInt><From>${from}</From><To>${to}</To></ForecastLgInt><Appendix>`,
    );
    const summary = summaryOfXml(Buffer.from(changed), '77_01_09_240613_VXSE45.xml');
    assert.ok(summary);
    return summary;
  };
  const over = withRange('3', 'over');
  assert.equal(field(over, 'ja', '予想最大長周期地震動階級'), '階級3以上');
  assert.equal(field(over, 'en', 'Max forecast long-period class'), 'Class 3 or more');
  const unknown = withRange('不明', '不明');
  assert.equal(field(unknown, 'ja', '予想最大長周期地震動階級'), '不明');
  assert.equal(field(unknown, 'en', 'Max forecast long-period class'), 'unknown');
  const range = withRange('1', '2');
  assert.equal(field(range, 'ja', '予想最大長周期地震動階級'), '階級1〜2');
  assert.equal(field(range, 'en', 'Max forecast long-period class'), 'Class 1 to 2');
});

test('an EEW shows the forecast long-period class whichever type carries it, and none without one', () => {
  // 37_01_02_240613 VXSE43 (the warning): ForecastInt 6-/6-, ForecastLgInt 2/2.
  const warning = summaryOfXml(
    readFileSync(fixture('official', '37_01_02_240613_VXSE43.xml')),
    '37_01_02_240613_VXSE43.xml',
  );
  assert.ok(warning);
  assert.equal(field(warning, 'ja', '予想最大長周期地震動階級'), '階級2');
  // 36_01_09_240613 VXSE44: Forecast has ForecastInt 5+/5+ and no ForecastLgInt.
  const xml = readFileSync(fixture('rest', '36_01_09_240613_VXSE44.xml'), 'utf8');
  const forecast = /<Intensity>\s*<Forecast>[\s\S]*?<Pref>/.exec(xml)![0];
  assert.ok(forecast.includes('<ForecastInt>') && !forecast.includes('<ForecastLgInt>'));
  const s = summaryOfXml(Buffer.from(xml), '36_01_09_240613_VXSE44.xml');
  assert.ok(s);
  assert.equal(field(s, 'ja', '最大予測震度'), '震度5強');
  assert.equal(field(s, 'ja', '予想最大長周期地震動階級'), undefined);
  assert.equal(field(s, 'en', 'Max forecast long-period class'), undefined);
});

const intensityJa = (c: string) => c.replace('-', '弱').replace('+', '強');

/** The facts of one VXSE45 as its XML gives them. */
function eewFromXml(xml: string) {
  const head = xml.split('<Body')[0]!;
  const body = xml.slice(head.length);
  const forecast = /<Intensity>\s*<Forecast>([\s\S]*?)(?:<Pref>|<\/Forecast>)/.exec(body)?.[1] ?? '';
  const range = (name: string) => {
    const element = all(forecast, name)[0];
    return element === undefined ? null : { from: first(element, 'From')!, to: first(element, 'To')! };
  };
  const coordinate = /<jmx_eb:Coordinate[^>]*>([^<]*)</.exec(body)?.[1] ?? '';
  const warned =
    /<Information type="緊急地震速報（細分区域）">([\s\S]*?)<\/Information>/.exec(head)?.[1] ?? '';
  return {
    infoType: first(head, 'InfoType')!,
    title: first(head, 'Title')!,
    serial: first(head, 'Serial')!,
    // An empty <Text/> is no headline.
    headline: first(all(head, 'Headline')[0] ?? '', 'Text') || null,
    text: first(body, 'Text'),
    epicentre: first(all(body, 'Hypocenter')[0] ?? '', 'Name'),
    magnitude: /<jmx_eb:Magnitude[^>]*>([^<]*)</.exec(body)?.[1] ?? null,
    depthKm: /-(\d+)\/$/.exec(coordinate) ? String(Number(/-(\d+)\/$/.exec(coordinate)![1]) / 1000) : null,
    originTime: first(body, 'OriginTime'),
    intensity: range('ForecastInt'),
    longPeriod: range('ForecastLgInt'),
    warned: all(warned, 'Area').map((area) => first(area, 'Name')!),
    final: /最終報/.test(first(body, 'NextAdvisory') ?? ''),
  };
}

test('every VXSE45 fixture: title, forecast intensity and long-period class, hypocentre and warned regions as the XML has them', () => {
  const files = fixturesOf('VXSE45');
  assert.ok(files.length >= 30, `${files.length} VXSE45 fixtures`);
  for (const path of files) {
    const xml = readFileSync(path, 'utf8');
    const x = eewFromXml(xml);
    const s = summaryOfXml(Buffer.from(xml), path.split('/').pop());
    assert.ok(s, path);
    const ja = describePost(s, 'ja');
    const en = describePost(s, 'en');
    if (x.infoType === '取消') {
      assert.equal(ja.title, `【取消】${x.title}`, path);
      assert.equal(ja.headline, x.text, path);
      assert.deepEqual(ja.fields, [], path);
      assert.equal(s.severity, 'default', path);
      continue;
    }
    assert.equal(ja.title, `${x.title} 第${x.serial}報${x.final ? ' 最終報' : ''}`, path);
    assert.equal(
      en.title,
      `Earthquake Early Warning (ground motion forecast) #${x.serial}${x.final ? ', final' : ''}`,
      path,
    );
    assert.equal(ja.headline, x.headline, path);
    assert.equal(en.headline, null, path);
    const int = x.intensity!;
    const maxJa = rangeText(int, (c) => `震度${intensityJa(c)}`, intensityJa, JA);
    assert.equal(field(s, 'ja', '最大予測震度'), maxJa, path);
    const lg = x.longPeriod;
    assert.equal(
      field(s, 'ja', '予想最大長周期地震動階級'),
      lg === null
        ? undefined
        : rangeText(
            lg,
            (c) => `階級${c}`,
            (c) => c,
            JA,
          ),
      path,
    );
    assert.equal(
      field(s, 'en', 'Max forecast long-period class'),
      lg === null
        ? undefined
        : rangeText(
            lg,
            (c) => `Class ${c}`,
            (c) => c,
            EN,
          ),
      path,
    );
    assert.equal(field(s, 'ja', '震源'), x.epicentre, path);
    assert.equal(field(s, 'ja', '規模'), `M${x.magnitude}`, path);
    assert.equal(field(s, 'ja', '深さ'), `${x.depthKm}km`, path);
    assert.equal(field(s, 'en', 'Depth'), `${x.depthKm} km`, path);
    const [date, time] = x.originTime!.replace('+09:00', '').split('T');
    assert.equal(
      field(s, 'ja', '発生時刻'),
      `${date!.replaceAll('-', '/')} ${time!.replace(/:00$/, '')} JST`,
      path,
    );
    assert.equal(field(s, 'en', 'Origin time'), `${date} ${time!.replace(/:00$/, '')} JST`, path);
    assert.equal(field(s, 'ja', '警報地域'), x.warned.length ? x.warned.join('、') : undefined, path);
    assert.equal(ja.gist, `${x.epicentre} M${x.magnitude} 最大予測${maxJa}`, path);
    // A warning (some region under 緊急地震速報（警報）) is high; a forecast alone is default.
    assert.equal(s.severity, x.warned.length ? 'high' : 'default', path);
  }
});
