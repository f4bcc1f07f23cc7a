import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type {
  EarthquakeHypocenterUpdate,
  EarthquakeInformation,
  EarthquakeNankai,
  TsunamiInformation,
  VolcanoInformation,
  WeatherRiverFlood,
  WeatherWarning,
} from '@dmdata/telegram-json-types';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { jmaXmlRestRoot, jmaXmlRoot } from '../support/fixtures.ts';

/**
 * Forms that JMA's XML schemas and manuals allow but no shared sample shows: each test edits a real
 * telegram into that form and expects what the XML says, as the production service's field
 * definitions (pdmdss/dmdata.jp, docs/reference/conversion/json/schema/) write it.
 */
const SAMPLES = join(jmaXmlRoot, 'jma-official-samples');

/** A real sample with one edit applied (the edit must apply: a silent no-op would test nothing). */
function edited(file: string, from: string | RegExp, to: string, root = SAMPLES): string {
  return applied(readFileSync(join(root, file), 'utf8'), file, from, to);
}

function applied(xml: string, file: string, from: string | RegExp, to: string): string {
  const out = xml.replace(from, to);
  assert.notEqual(out, xml, `the edit of ${file} did not apply`);
  return out;
}

/** The body `Item` of the area named `area` in a telegram of the rest of JMA's sample set, as written. */
function restItem(file: string, area: string): string {
  const xml = readFileSync(join(jmaXmlRestRoot, file), 'utf8');
  const body = xml.slice(xml.indexOf('<Body'));
  const item = body.match(/<Item>[\s\S]*?<\/Item>/g)?.find((i) => i.includes(`<Name>${area}</Name>`));
  assert.ok(item, `${file} has no Item of ${area}`);
  return item;
}

function converted<T>(xml: string, type: string): T {
  const outcome = convertTelegram(xml, type, 'a'.repeat(96));
  assert.ok(outcome, `${type}: declined`);
  assert.ok(outcome.ok, `${type}: ${outcome.ok ? '' : outcome.reason}`);
  return outcome.document as unknown as T;
}

type Vtse52 = TsunamiInformation.v1_1_0.PublicVTSE52;
type Vpww54 = WeatherWarning.v1_0_0.PublicVPWW54;
type RiverFlood = WeatherRiverFlood.v1_0_0.Public;
type Vyse50 = EarthquakeNankai.v1_0_0.PublicVYSE50;
type Vxse61 = EarthquakeHypocenterUpdate.v1_0_0.Public;
type Vzse40 = EarthquakeInformation.v1_1_0.PublicVZSE40;
type Vfvo50 = VolcanoInformation.v1_0_0.PublicVFVO50;
type Vfvo52 = VolcanoInformation.v1_0_0.PublicVFVO52;
type Vfvo56 = VolcanoInformation.v1_0_0.PublicVFVO56;

test('VTSE52: a coast whose estimated arrival is still ahead (ArrivalTime without Condition)', () => {
  // JMA writes Condition 早いところでは既に津波到達と推定 only when the coast may already have been
  // reached before the estimated time; production: arrivalTime always, condition only then.
  const xml = edited(
    '61_11_01_250206_VTSE52.xml',
    '<Condition>早いところでは既に津波到達と推定</Condition>',
    '',
  );
  const [estimation] = converted<Vtse52>(xml, 'VTSE52').body.tsunami.estimations;
  assert.deepEqual(estimation?.firstHeight, { arrivalTime: '2011-03-11T14:55:00+09:00' });
});

test('VFVO50: a volcano whose Area has no Coordinate gets the unknown coordinate', () => {
  // jmx_volc's Area makes Coordinate optional; production's target always has a coordinate, and
  // the Coordinate component writes a point that is not given as {condition: 不明}.
  const xml = edited('45_01_01_200522_VFVO50.xml', /<Coordinate description="[^"]*">[^<]*<\/Coordinate>/, '');
  const { target } = converted<Vfvo50>(xml, 'VFVO50').body;
  assert.deepEqual(target.coordinate, { condition: '不明' });
  assert.equal(target.name, '浅間山');
});

test('VFVO52: a volcano whose Area has no Coordinate gets the unknown coordinate', () => {
  const xml = edited('43_01_01_200522_VFVO52.xml', /<Coordinate description="[^"]*">[^<]*<\/Coordinate>/, '');
  const { target } = converted<Vfvo52>(xml, 'VFVO52').body;
  assert.deepEqual(target.coordinate, { condition: '不明' });
  assert.equal(target.name, '浅間山');
});

test('VFVO56: a volcano Area with a Coordinate still converts; the target is code, name and kind', () => {
  // Production's 噴火速報 target has no coordinate field (its sample: code, name, kind).
  const xml = edited(
    '67_01_01_140927_VFVO56.xml',
    /(<VolcanoInfo type="噴火速報">[\s\S]*?<Code>312<\/Code>)/,
    '$1\n<Coordinate description="北緯３５度５３．６３分　東経１３７度２８．８０分　標高３０６７ｍ">+3553.63+13728.80+3067/</Coordinate>',
  );
  assert.deepEqual(converted<Vfvo56>(xml, 'VFVO56').body.target, {
    code: '312',
    name: '御嶽山',
    kind: { code: '52', name: '噴火' },
  });
});

test('VFVO52: a plume direction written as its heights are when unknown (condition 不明, no text) is 流向不明', () => {
  // The same ColorPlume writes its unknown heights as condition="不明" with no text; jmx_eb allows the
  // direction that form too. Production's direction value: the eight points, 直上, 流向不明 or 噴煙なし.
  const xml = edited(
    '43_01_01_200522_VFVO52.xml',
    '<jmx_eb:PlumeDirection type="噴煙の流向" unit="漢字" description="流向不明">流向不明</jmx_eb:PlumeDirection>',
    '<jmx_eb:PlumeDirection type="噴煙の流向" unit="漢字" condition="不明" description="流向不明" />',
  );
  const plume = converted<Vfvo52>(xml, 'VFVO52').body.eruption.colorPlume;
  assert.deepEqual(plume?.direction, { type: '噴煙の流向', unit: '漢字', value: '流向不明' });
});

test('VPWW54: an area whose every warning is lifted (Kinds all 解除, no LastKind), and no time series', () => {
  // No VPWW54 sample lifts anything; the VPWW53 samples of 2013/2016 (the same Warning blocks) lift
  // everything in 奈良県 and 大和郡山市. Production: status 解除 is one of the kind's values, and
  // timeSeries does not appear when every warning is lifted (JMA then sends no MeteorologicalInfos).
  const sample = '15_12_01_161130_VPWW54.xml';
  let xml = edited(
    sample,
    /(<Warning type="気象警報・注意報（府県予報区等）">\s*)<Item>[\s\S]*?<\/Item>/,
    `$1${restItem('15_08_05_130412_VPWW53.xml', '奈良県')}`,
  );
  xml = applied(
    xml,
    sample,
    /(<Warning type="気象警報・注意報（市町村等）">\s*)<Item>[\s\S]*?<\/Item>/,
    `$1${restItem('15_08_04_160628_VPWW53.xml', '大和郡山市')}`,
  );
  xml = applied(xml, sample, /<MeteorologicalInfos [\s\S]*<\/MeteorologicalInfos>/, '');
  const body = converted<Vpww54>(xml, 'VPWW54').body;
  assert.deepEqual(body.prefectures[0], {
    code: '290000',
    name: '奈良県',
    kinds: [
      { code: '33', name: '大雨特別警報', status: '解除' },
      { code: '04', name: '洪水警報', status: '解除' },
    ],
    changeStatus: '警報・注意報種別に変化有',
    fullStatus: '一部',
    editingMark: false,
  });
  assert.deepEqual(body.cities[0], {
    code: '2920300',
    name: '大和郡山市',
    kinds: [
      { code: '10', name: '大雨注意報', status: '解除' },
      { code: '14', name: '雷注意報', status: '解除' },
      { code: '15', name: '強風注意報', status: '解除' },
      { code: '18', name: '洪水注意報', status: '解除' },
    ],
    changeStatus: '警報・注意報種別に変化有',
  });
  assert.equal('timeSeries' in body, false);
});

test('VXKO 氾濫発生情報 without water-level or rainfall information: neither part is written', () => {
  // The 氾濫発生 sample carries both; JMA's schema makes every MeteorologicalInfos optional, and
  // docs/conversion/weather-river-flood.md leaves out a part the telegram does not have.
  let xml = edited(
    '16_04_01_220728_VXKOii.xml',
    /<MeteorologicalInfos type="水位・流量情報">[\s\S]*?<\/MeteorologicalInfos>/,
    '',
    jmaXmlRestRoot,
  );
  xml = applied(xml, 'VXKOii', /<MeteorologicalInfos type="雨量情報">[\s\S]*?<\/MeteorologicalInfos>/, '');
  const body = converted<RiverFlood>(xml, 'VXKOii').body;
  assert.deepEqual(body.target, {
    code: '123456789012',
    name: '○○川上流',
    kind: { code: '53', name: '氾濫発生情報（氾濫水の予報）', condition: '洪水警報' },
  });
  assert.equal('waterLevel' in body, false);
  assert.equal('rainfall' in body, false);
  assert.equal(body.floodedWaters?.length, 1);
});

test('VYSE50 臨時 (調査中) whose EarthquakeInfo has no Text: text is the empty string', () => {
  // Production's earthquakeInfo.text has no appearance condition (always present).
  const xml = edited('74_01_01_200512_VYSE50.xml', /(<\/InfoSerial>\s*)<Text>[\s\S]*?<\/Text>/, '$1');
  const info = converted<Vyse50>(xml, 'VYSE50').body.earthquakeInfo;
  assert.ok(info);
  assert.deepEqual(info.kind, { code: '111', name: '調査中' });
  assert.equal(info.text, '');
  assert.ok(info.appendix?.includes('（参考）　南海トラフ地震に関連する情報の種類'));
});

test('VXSE61 without the degrees-minutes point: the hypocentre from the degrees point', () => {
  const xml = edited(
    '32-35_03_02_240613_VXSE61.xml',
    /<jmx_eb:Coordinate type="震源位置（度分）"[^>]*>[^<]*<\/jmx_eb:Coordinate>/,
    '',
  );
  const { hypocenter } = converted<Vxse61>(xml, 'VXSE61').body.earthquake;
  // the degrees point: +34.8+138.5-20000/ (北緯３４．８度 東経１３８．５度 深さ ２０ｋｍ)
  assert.deepEqual(hypocenter.coordinate.latitude, { text: '34.8˚N', value: '34.8000' });
  assert.deepEqual(hypocenter.coordinate.longitude, { text: '138.5˚E', value: '138.5000' });
  assert.deepEqual(hypocenter.depth, { type: '深さ', unit: 'km', value: '20' });
});

test('VZSE40 with a FreeFormComment beside its Text: the body is the text alone', () => {
  // jmx_seis lets any seismic Body carry Comments; production's VZSE40 body is {text} only.
  const file = '42_01_01_100514_VZSE40.xml';
  const xml = edited(
    file,
    /(<Body[^>]*>\s*<Text>[\s\S]*?<\/Text>)/,
    '$1<Comments><FreeFormComment>詳細は気象庁ホームページをご覧ください。</FreeFormComment></Comments>',
  );
  const written = /<Body[^>]*>\s*<Text>([\s\S]*?)<\/Text>/.exec(xml)?.[1];
  assert.deepEqual(converted<Vzse40>(xml, 'VZSE40').body, { text: written });
});
