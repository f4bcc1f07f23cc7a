// Ready-made posts of forms JMA's schemas allow but few samples show, each made by editing a real
// telegram (docs/conversion.md "Forms no sample shows"): every format in both languages builds
// without throwing, says nothing the telegram does not ('undefined', 'NaN', a figure for a condition)
// and leaves out nothing it says. Every expected value is read from the XML; the wording rules are
// docs/webhooks.md's ("What a post says").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { jmaXmlRoot } from '../support/fixtures.ts';
import { postFormats, renderPost } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { decodeEncodedWords, summaryOfXml } from './posts-support.ts';

const SAMPLES = join(jmaXmlRoot, 'jma-official-samples');
const LANGS = ['ja', 'en'] as const;
type Lang = (typeof LANGS)[number];

/** A real sample with its edits applied (each must apply: a silent no-op would test nothing). */
function edited(file: string, ...edits: [string | RegExp, string][]): string {
  let xml = readFileSync(join(SAMPLES, file), 'utf8');
  for (const [from, to] of edits) {
    const out = xml.replace(from, to);
    assert.notEqual(out, xml, `the edit ${String(from)} of ${file} did not apply`);
    xml = out;
  }
  return xml;
}

const summaryOf = (xml: string, file: string): TelegramSummary => {
  const summary = summaryOfXml(Buffer.from(xml), file);
  assert.ok(summary, file);
  return summary;
};

/** Every format's whole text (ntfy's title decoded), built without throwing, checked for leaks. */
function posts(summary: TelegramSummary, lang: Lang): string[] {
  return postFormats.map((format) => {
    const post = renderPost(format, summary, lang, { misskey: { token: 't' } });
    const text =
      format === 'ntfy' ? `${decodeEncodedWords(post.headers.title!)}\n${post.body}` : JSON.parse(post.body);
    const all = typeof text === 'string' ? text : JSON.stringify(text);
    assert.doesNotMatch(all, /undefined|NaN|null|\[object/, `${format} ${lang}`);
    return all;
  });
}

/** The ntfy body's `label：value` lines (`label: value` in English), read by their label. */
function ntfyFields(summary: TelegramSummary, lang: Lang) {
  const lines = (renderPost('ntfy', summary, lang).body as string).split('\n');
  const colon = lang === 'ja' ? '：' : ': ';
  const get = (label: string) =>
    lines.find((line) => line.startsWith(label + colon))?.slice(label.length + colon.length);
  return { get, has: (label: string) => get(label) !== undefined };
}

const EEW_WARNING = '37_01_01_240613_VXSE43.xml';
const EEW_FORECAST = '77_01_01_240613_VXSE45.xml';
const EEW_COORDINATE = /<jmx_eb:Coordinate description="[^"]*">[^<]*<\/jmx_eb:Coordinate>/;
const MAGNITUDE = /<jmx_eb:Magnitude type="Mj" description="[^"]*">[^<]*<\/jmx_eb:Magnitude>/;

test('EEW: an assumed hypocentre (PLUM, 仮定震源要素) states no magnitude, depth or origin time', () => {
  // JMA writes fixed values for an assumed hypocentre (M1.0, 10 km, the time it assumes): no
  // estimate, as the live view's banner says too (docs/console-live.md "EEW banner").
  const xml = edited(
    EEW_WARNING,
    ['</ArrivalTime>', '</ArrivalTime><Condition>仮定震源要素</Condition>'],
    [
      EEW_COORDINATE,
      '<jmx_eb:Coordinate description="北緯３３．２度　東経１３２．４度　深さ　１０ｋｍ">+33.2+132.4-10000/</jmx_eb:Coordinate>',
    ],
    [MAGNITUDE, '<jmx_eb:Magnitude type="Mj" description="Ｍ１．０">1.0</jmx_eb:Magnitude>'],
  );
  const summary = summaryOf(xml, EEW_WARNING);
  for (const lang of LANGS) {
    for (const text of posts(summary, lang)) {
      assert.doesNotMatch(text, /M1\.0|10 ?km|23:14:48/, lang);
    }
  }
  const ja = ntfyFields(summary, 'ja');
  assert.equal(ja.get('震源'), '豊後水道（仮定震源要素）');
  assert.equal(ja.get('規模'), '不明');
  assert.equal(ja.get('深さ'), '不明');
  assert.equal(ja.has('発生時刻'), false);
  assert.equal(ntfyFields(summary, 'en').get('Epicentre'), '豊後水道 (assumed epicentre)');
});

test('EEW: magnitude and depth conditions are said in words, never as a figure', () => {
  const cases: { edit: [RegExp, string]; ja: [string, string]; en: [string, string]; not: RegExp }[] = [
    {
      edit: [
        MAGNITUDE,
        '<jmx_eb:Magnitude type="Mj" condition="不明" description="Ｍ不明">NaN</jmx_eb:Magnitude>',
      ],
      ja: ['規模', '不明'],
      en: ['Magnitude', 'unknown'],
      not: /M\d/,
    },
    {
      edit: [
        EEW_COORDINATE,
        '<jmx_eb:Coordinate description="北緯３３．２度　東経１３２．４度　ごく浅い">+33.2+132.4+0/</jmx_eb:Coordinate>',
      ],
      ja: ['深さ', 'ごく浅い'],
      en: ['Depth', 'very shallow'],
      not: /(^|\D)0 ?km/,
    },
    {
      edit: [
        EEW_COORDINATE,
        '<jmx_eb:Coordinate description="北緯３３．２度　東経１３２．４度　深さ　７００ｋｍ以上">+33.2+132.4-700000/</jmx_eb:Coordinate>',
      ],
      ja: ['深さ', '700km以上'],
      en: ['Depth', '700 km or deeper'],
      not: /700 ?km(?!以上| or deeper)/,
    },
    {
      edit: [
        EEW_COORDINATE,
        '<jmx_eb:Coordinate description="北緯３３．２度　東経１３２．４度　深さ不明">+33.2+132.4/</jmx_eb:Coordinate>',
      ],
      ja: ['深さ', '不明'],
      en: ['Depth', 'unknown'],
      not: /\d ?km/,
    },
  ];
  for (const { edit, ja, en, not } of cases) {
    const summary = summaryOf(edited(EEW_WARNING, edit), EEW_WARNING);
    for (const lang of LANGS)
      for (const text of posts(summary, lang)) assert.doesNotMatch(text, not, edit[1]);
    assert.equal(ntfyFields(summary, 'ja').get(ja[0]), ja[1], edit[1]);
    assert.equal(ntfyFields(summary, 'en').get(en[0]), en[1], edit[1]);
  }
});

test('EEW: a forecast of "or more" (over), a warning without regions, a final report', () => {
  const over = summaryOf(
    edited(EEW_FORECAST, [
      '<ForecastInt><From>3</From><To>3</To></ForecastInt><ForecastLgInt><From>0</From><To>0</To></ForecastLgInt>',
      '<ForecastInt><From>6-</From><To>over</To></ForecastInt><ForecastLgInt><From>3</From><To>over</To></ForecastLgInt>',
    ]),
    EEW_FORECAST,
  );
  posts(over, 'ja');
  assert.equal(ntfyFields(over, 'ja').get('最大予測震度'), '震度6弱以上');
  assert.equal(ntfyFields(over, 'ja').get('予想最大長周期地震動階級'), '階級3以上');
  assert.equal(ntfyFields(over, 'en').get('Max forecast intensity'), 'Shindo 6- or more');

  // A warning whose Headline names no region: no empty list posted as if it were the whole.
  const bare = summaryOf(
    edited(
      EEW_WARNING,
      [/<Headline>[\s\S]*?<\/Headline>/, '<Headline><Text>強い揺れに警戒してください。</Text></Headline>'],
      [/<Pref>[\s\S]*<\/Pref>/, ''],
    ),
    EEW_WARNING,
  );
  for (const lang of LANGS) posts(bare, lang);
  assert.equal(ntfyFields(bare, 'ja').has('警報地域'), false);
  assert.equal(bare.severity, 'urgent');

  const final = summaryOf(
    edited(EEW_FORECAST, [
      '</Intensity></Body>',
      '</Intensity><NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</NextAdvisory></Body>',
    ]),
    EEW_FORECAST,
  );
  for (const lang of LANGS) posts(final, lang);
  assert.equal(
    decodeEncodedWords(renderPost('ntfy', final, 'ja').headers.title!),
    '緊急地震速報（地震動予報） 第1報 最終報',
  );
});

test('EEW: a cancellation is marked cancelled and states nothing of the withdrawn warning', () => {
  const file = '37_01_03_240613_VXSE43.xml';
  const xml = readFileSync(join(SAMPLES, file), 'utf8');
  const body = /<Body[^>]*>\s*<Text>([^<]*)<\/Text>/.exec(xml)![1]!.trim();
  const summary = summaryOf(xml, file);
  for (const lang of LANGS) posts(summary, lang);
  const ntfy = renderPost('ntfy', summary, 'ja');
  assert.equal(decodeEncodedWords(ntfy.headers.title!), '【取消】緊急地震速報（警報）');
  assert.equal((ntfy.body as string).split('\n')[0], body);
  assert.equal(summary.severity, 'default');
});

const QUAKE = '32-35_01_03_240613_VXSE53.xml';

test('earthquake: Ｍ８を超える巨大地震, 震源要素不明 and a distant earthquake without intensity', () => {
  const m8 = summaryOf(
    edited(QUAKE, [
      MAGNITUDE,
      '<jmx_eb:Magnitude type="Mj" condition="不明" description="Ｍ８を超える巨大地震">NaN</jmx_eb:Magnitude>',
    ]),
    QUAKE,
  );
  for (const lang of LANGS) for (const text of posts(m8, lang)) assert.doesNotMatch(text, /M ?8\.\d/);
  assert.equal(ntfyFields(m8, 'ja').get('規模'), 'M8を超える巨大地震');
  assert.equal(ntfyFields(m8, 'en').get('Magnitude'), 'over M8');

  const unknown = summaryOf(
    edited(
      QUAKE,
      [
        /<jmx_eb:Coordinate description="[^"]*">[^<]*<\/jmx_eb:Coordinate>/,
        '<jmx_eb:Coordinate description="震源要素不明" />',
      ],
      [MAGNITUDE, '<jmx_eb:Magnitude type="Mj" condition="不明" description="Ｍ不明">NaN</jmx_eb:Magnitude>'],
    ),
    QUAKE,
  );
  for (const lang of LANGS) for (const text of posts(unknown, lang)) assert.doesNotMatch(text, /\d ?km/);
  assert.equal(ntfyFields(unknown, 'ja').get('深さ'), '不明');
  assert.equal(ntfyFields(unknown, 'ja').get('規模'), '不明');

  // 32-39_05_01 VXSE53: 南米西部 (チリ中部沿岸), Ｍ８．５, 深さ６０ｋｍ, no Intensity element.
  const distantFile = '32-39_05_01_100831_VXSE53.xml';
  const distant = summaryOf(readFileSync(join(SAMPLES, distantFile), 'utf8'), distantFile);
  for (const lang of LANGS) for (const text of posts(distant, lang)) assert.doesNotMatch(text, /震度|Shindo/);
  const ja = ntfyFields(distant, 'ja');
  assert.equal(ja.get('震源'), '南米西部');
  assert.equal(ja.get('規模'), 'M8.5');
  assert.equal(ja.get('深さ'), '60km');
});

test('earthquake: cities whose intensity of 5弱 or more has not come in are named', () => {
  // The Headline's Information item 震度５弱以上未入電 lists the cities; each is a City whose
  // Condition is 震度５弱以上未入電 in the Body.
  for (const file of ['32-35_07_06_240613_VXSE53.xml', '32-35_06_03_240613_VXSE53.xml']) {
    const xml = readFileSync(join(SAMPLES, file), 'utf8');
    const item = /<Kind><Name>震度５弱以上未入電<\/Name><\/Kind>([\s\S]*?)<\/Item>/.exec(xml)![1]!;
    const cities = [...item.matchAll(/<Name>([^<]*)<\/Name>/g)].map((m) => m[1]!);
    assert.ok(cities.length > 0, file);
    const summary = summaryOf(xml, file);
    for (const lang of LANGS) posts(summary, lang);
    const ja = ntfyFields(summary, 'ja').get('震度5弱以上未入電');
    assert.deepEqual(ja?.split('、').sort(), [...cities].sort(), file);
    const en = ntfyFields(summary, 'en').get('Shindo 5- or more, not yet received');
    assert.deepEqual(en?.split(', ').sort(), [...cities].sort(), file);
  }
});

test('earthquake: a VXSE51 of intensity 3 only lists its regions under 震度3', () => {
  const file = '32-35_01_01_100806_VXSE51.xml';
  const xml = edited(file, [/<MaxInt>[^<]*<\/MaxInt>/g, '<MaxInt>3</MaxInt>']);
  const regions = [...xml.matchAll(/<Area>\s*<Name>([^<]*)<\/Name>/g)].map((m) => m[1]!);
  const summary = summaryOf(xml, file);
  for (const lang of LANGS) posts(summary, lang);
  assert.equal(summary.severity, 'default');
  const ja = ntfyFields(summary, 'ja');
  assert.equal(ja.get('最大震度'), '震度3');
  assert.deepEqual(ja.get('震度3')?.split('、').sort(), [...new Set(regions)].sort());
});

test('tsunami: 大津波警報 with 巨大, a lifting (解除), and VTSE51 observations build and keep their classes', () => {
  // 32-39_11_02 VTSE41: 大津波警報：発表 for 岩手県, 宮城県, 福島県 (heights 巨大).
  const major = summaryOf(
    readFileSync(join(SAMPLES, '32-39_11_02_250206_VTSE41.xml'), 'utf8'),
    '32-39_11_02_250206_VTSE41.xml',
  );
  for (const lang of LANGS) posts(major, lang);
  assert.equal(major.severity, 'urgent');
  assert.equal(ntfyFields(major, 'ja').get('大津波警報：発表'), '岩手県、宮城県、福島県');

  // Every class lifted, with JMA's names of the lifting (警報解除 50, 津波注意報解除 60).
  const lifted = summaryOf(
    edited('32-39_11_02_250206_VTSE41.xml', [
      /<Kind><Name>[^<]*<\/Name><Code>(5[123]|62|7\d)<\/Code><\/Kind>/g,
      '<Kind><Name>警報解除</Name><Code>50</Code></Kind>',
    ]),
    '32-39_11_02_250206_VTSE41.xml',
  );
  for (const lang of LANGS) posts(lifted, lang);
  assert.equal(lifted.severity, 'low');
  assert.ok(ntfyFields(lifted, 'en').has('Tsunami warning lifted'));

  // VTSE51 with 若干, 第１波の到達を確認 (32-39_11_03), 欠測 (38_01_01, training).
  for (const file of [
    '32-39_11_03_250206_VTSE51.xml',
    '38_01_01_250710_VTSE51.xml',
    '38-39_02_02_250206_VTSE51.xml',
  ]) {
    const xml = readFileSync(join(SAMPLES, file), 'utf8');
    const summary = summaryOf(xml, file);
    const training = /<Status>訓練<\/Status>/.test(xml);
    for (const lang of LANGS)
      for (const text of posts(summary, lang))
        assert.equal(text.includes(lang === 'ja' ? '【訓練】' : '[TRAINING]'), training, file);
  }
});

test('volcano: a target without coordinate and a 噴火速報 without cities', () => {
  const file = '45_01_01_200522_VFVO50.xml';
  const noCoordinate = summaryOf(
    edited(file, [/<Coordinate description="[^"]*">[^<]*<\/Coordinate>/, '']),
    file,
  );
  for (const lang of LANGS) posts(noCoordinate, lang);
  assert.equal(ntfyFields(noCoordinate, 'ja').get('火山'), '浅間山');

  const flash = '67_01_01_140927_VFVO56.xml';
  const noCities = summaryOf(
    edited(flash, [/<VolcanoInfo type="噴火速報（対象市町村等）">[\s\S]*?<\/VolcanoInfo>/, '']),
    flash,
  );
  for (const lang of LANGS) posts(noCities, lang);
  assert.equal(noCities.severity, 'high');
  const ja = ntfyFields(noCities, 'ja');
  assert.equal(ja.get('火山'), '御嶽山');
  assert.equal(ja.has('噴火'), false);
});

test('weather: a VPWW53 whose every area is lifted (解除) builds from its headline', () => {
  const file = '15_13_01_161226_VPWW53.xml';
  const xml = readFileSync(join(SAMPLES, file), 'utf8').replace(
    /<Status>(発表|継続|発表警報・注意報はなし)<\/Status>/g,
    '<Status>解除</Status>',
  );
  const summary = summaryOf(xml, file);
  for (const lang of LANGS) posts(summary, lang);
  assert.equal(summary.title, '東京都気象警報・注意報');
});
