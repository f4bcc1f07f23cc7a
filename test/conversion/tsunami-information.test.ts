import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TsunamiInformation } from '@dmdata/telegram-json-types';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

type Latest = TsunamiInformation.v1_1_0.Main;
type Published = Exclude<Latest, TsunamiInformation.v1_1_0.Cancel>;
type Body51 = TsunamiInformation.v1_1_0.PublicBodyVTSE51;

const SAMPLES = 'dmdata-json/sample-telegrams/tsunami-information';
const NEWER_VERSION = 'the official samples are tsunami-information 1.0.0; Namazu produces 1.1.0';

goldPairTests('tsunami-information', {
  ...Object.fromEntries(
    [
      'vtse41_jpos_20110311145300',
      'vtse41_jpos_20110311150000',
      'vtse41_jpos_20110313175818',
      'vtse41_jpos_20151114055628',
      'vtse41_jpos_20151114072001',
      'vtse41_rjtd_20160901071300',
      'vtse41_rjtd_20181204180300',
      'vtse51_jpos_20110311145046',
      'vtse51_jpos_20110311145927',
      'vtse51_jpos_20151114055804',
      'vtse51_jpos_20151114072410',
      'vtse51_rjtd_20160901071400',
      'vtse51_rjtd_20160901072000',
      'vtse51_rjtd_20160901072700',
      'vtse51_rjtd_20160901074000',
      'vtse51_rjtd_20160901091000',
      'vtse51_rjtd_20160901095500',
      'vtse51_rjtd_20160901095501',
      'vtse52_jpos_20110311151400',
      'vtse52_rjtd_20160901071530',
    ].map((name) => [`${SAMPLES}/${name}.json`, { '$._schema.version': NEWER_VERSION }]),
  ),
  [`${SAMPLES}/vtse51_jpos_20110311150155.json`]: {
    '$._schema.version': NEWER_VERSION,
    '$.body.tsunami.observations[1].stations[0].firstHeight.initial':
      'sample revision: the sample has initial 押し for 宮古 (21001), but the paired XML revision ' +
      '(32-39_11_10_120615) writes no Initial in that FirstHeight, so there is nothing to convert',
  },
  [`${SAMPLES}/vtse52_jpos_20110311145350.json`]: {
    '$._schema.version': NEWER_VERSION,
    '$.body.tsunami.estimations[0].maxHeight.dateTime':
      '1.1.0 requires dateTime beside an estimated height (1.0.0 only when JMA gives one); the paired ' +
      'XML revision (61_11_01_120615) has no MaxHeight/DateTime for 岩手県, so 1.1.0 carries the ' +
      "coast's estimated arrival time 14:55, while the sample shows 14:57 from a revision not in the fixtures",
  },
});

fixtureSchemaTests(['VTSE41', 'VTSE51', 'VTSE52']);

function convert(folder: string, file: string, type: string): Latest {
  const outcome = convertFixture(join(jmaXmlRoot, folder, file), type);
  assert.ok(outcome, 'no conversion');
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  return outcome.document as Latest;
}

const published = (document: Latest): Published['body'] => {
  assert.notEqual(document.infoType, '取消');
  return (document as Published).body;
};

const observedStation = (body: Body51, name: string) => {
  const station = body.tsunami.observations?.flatMap((o) => o.stations).find((s) => s.name === name);
  assert.ok(station, `no observed station ${name}`);
  return station;
};

test('2023-10-09 鳥島近海: the first 津波注意報 (Ｍ不明, ごく浅い) field by field', () => {
  const document = convert('real-operational', '20231009064018_06274659_VTSE41.xml', 'VTSE41');
  assert.equal(document._schema.version, '1.1.0');
  assert.equal(document.eventId, '20231009052500');
  assert.equal(document.serialNo, null);
  assert.equal(document.headline, '津波注意報を発表しました。');
  const body = published(document) as TsunamiInformation.v1_1_0.PublicBodyVTSE41;
  assert.deepEqual(body.tsunami.forecasts, [
    {
      code: '320',
      name: '伊豆諸島',
      kind: { code: '62', name: '津波注意報', lastKind: { code: '00', name: '津波なし' } },
      firstHeight: { condition: '津波到達中と推測' },
      maxHeight: { height: { type: '津波の高さ', unit: 'm', value: '1' } },
    },
    {
      code: '321',
      name: '小笠原諸島',
      kind: { code: '62', name: '津波注意報', lastKind: { code: '00', name: '津波なし' } },
      firstHeight: { condition: '津波到達中と推測' },
      maxHeight: { height: { type: '津波の高さ', unit: 'm', value: '1' } },
    },
  ]);
  assert.equal(body.earthquakes.length, 1);
  const [earthquake] = body.earthquakes;
  assert.equal(earthquake?.originTime, '2023-10-09T05:25:00+09:00');
  assert.equal(earthquake?.hypocenter.name, '鳥島近海');
  assert.deepEqual(earthquake?.hypocenter.depth, {
    type: '深さ',
    unit: 'km',
    value: '0',
    condition: 'ごく浅い',
  });
  assert.deepEqual(earthquake?.magnitude, {
    type: 'マグニチュード',
    unit: 'Mj',
    value: null,
    condition: 'Ｍ不明',
  });
  assert.deepEqual(body.comments?.warning?.codes, ['0123', '0132']);
  assert.ok(body.comments?.warning?.text.startsWith('＜津波注意報＞\n海の中や海岸付近は危険です。'));
  assert.ok(body.comments?.free?.startsWith('［予想される津波の高さの解説］\n'));
  assert.equal(body.text, undefined);
});

test('2023-10-09 鳥島近海: every telegram of the sequence converts; the last one has no MaxHeight at all', () => {
  const files = [
    '20231009064018_06274659_VTSE41.xml',
    '20231009072652_07314633_VTSE41.xml',
    '20231009074440_07748424_VTSE41.xml',
    '20231009075134_09107320_VTSE41.xml',
    '20231009082436_00085500_VTSE41.xml',
    '20231009120003_08446949_VTSE41.xml',
  ];
  for (const file of files) convert('real-operational', file, 'VTSE41');
  const last = published(convert('real-operational', files[5]!, 'VTSE41'));
  const forecasts = (last as TsunamiInformation.v1_1_0.PublicBodyVTSE41).tsunami.forecasts;
  assert.equal(forecasts.length, 15);
  for (const forecast of forecasts) {
    assert.equal(forecast.kind.name, '津波予報（若干の海面変動）');
    assert.equal(forecast.firstHeight, undefined);
    assert.equal(forecast.maxHeight, undefined);
  }
  assert.deepEqual(forecasts[0], {
    code: '310',
    name: '千葉県九十九里・外房',
    kind: { code: '72', name: '津波予報（若干の海面変動）', lastKind: { code: '62', name: '津波注意報' } },
  });
  assert.deepEqual(forecasts[4]?.kind, {
    code: '71',
    name: '津波予報（若干の海面変動）',
    lastKind: { code: '71', name: '津波予報（若干の海面変動）' },
  });
});

test('a cancelled VTSE41 and VTSE51 carry only the reason text', () => {
  for (const [file, type] of [
    ['38-39_03_01_210805_VTSE41.xml', 'VTSE41'],
    ['38-39_03_02_210805_VTSE51.xml', 'VTSE51'],
  ] as const) {
    const document = convert('jma-official-samples', file, type);
    assert.equal(document.infoType, '取消');
    assert.equal(document.eventId, '20210805103531');
    assert.deepEqual(Object.keys(document.body), ['text']);
  }
  const vtse41 = convert('jma-official-samples', '38-39_03_01_210805_VTSE41.xml', 'VTSE41');
  assert.deepEqual(vtse41.body, { text: '先ほどの、津波注意報を取り消します。' });
});

test('2025 operation (VTSE51): 欠測, 第１波識別不能, 微弱 and 観測中 stations', () => {
  const body = published(convert('jma-official-samples', '38_01_01_250710_VTSE51.xml', 'VTSE51')) as Body51;
  const station = (name: string) => observedStation(body, name);
  assert.deepEqual(station('父島二見'), {
    code: '32101',
    name: '父島二見',
    firstHeight: { status: '欠測' },
    maxHeight: { status: '欠測' },
  });
  assert.deepEqual(station('釧路').maxHeight, { condition: '観測中', revise: '追加', status: '欠測' });
  assert.deepEqual(station('浦河').firstHeight, { condition: '第１波識別不能' });
  assert.deepEqual(station('えりも町庶野').firstHeight, { condition: '第１波識別不能', revise: '追加' });
  assert.deepEqual(station('函館').maxHeight, {
    dateTime: '2025-07-02T18:10:00+09:00',
    height: { type: 'これまでの最大波の高さ', unit: 'm', value: '3.5', over: true },
    condition: '重要',
    status: '欠測',
  });
  assert.deepEqual(station('稚内').maxHeight, {
    dateTime: '2025-07-02T18:23:00+09:00',
    height: { type: 'これまでの最大波の高さ', unit: 'm', value: '0.5' },
    status: '欠測',
  });
  assert.deepEqual(station('沼津市内浦').maxHeight, {
    dateTime: '2025-07-02T18:35:00+09:00',
    condition: '微弱',
    revise: '追加',
    status: '欠測',
  });
  assert.deepEqual(station('室蘭港').maxHeight, {
    dateTime: '2025-07-02T18:47:00+09:00',
    height: { type: 'これまでの最大波の高さ', unit: 'm', value: '2.0', over: true },
  });
  assert.deepEqual(body.comments?.warning?.codes, ['0114', '0111', '0112']);
});

test('a VTSE51 station without MaxHeight (as on 2023-10-09) converts without maxHeight and validates', () => {
  const xml = readFileSync(
    join(jmaXmlRoot, 'jma-official-samples-older', '38-39_02_05_191025_VTSE51.xml'),
    'utf8',
  );
  const withoutMax = xml.replace(
    /<MaxHeight>\s*<DateTime>2015-11-14T06:45:00\+09:00<\/DateTime>[\s\S]*?<\/MaxHeight>/u,
    '',
  );
  assert.notEqual(withoutMax, xml);
  const outcome = convertTelegram(withoutMax, 'VTSE51', 'a'.repeat(96));
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'no conversion');
  const body = (outcome.document as Published).body as Body51;
  assert.deepEqual(observedStation(body, '中之島'), {
    code: '77203',
    name: '中之島',
    firstHeight: { arrivalTime: '2015-11-14T06:26:00+09:00', initial: '押し' },
  });
});

test('2011 first warning: NaN heights without a qualitative description are null with no condition', () => {
  const document = convert('jma-official-samples-older', '32-39_11_02_120615_VTSE41.xml', 'VTSE41');
  const forecasts = (published(document) as TsunamiInformation.v1_1_0.PublicBodyVTSE41).tsunami.forecasts;
  const unqualified = forecasts.filter(
    (f) => f.maxHeight?.height.value === null && !f.maxHeight.height.condition,
  );
  assert.ok(unqualified.length > 0);
  for (const forecast of unqualified) {
    assert.deepEqual(forecast.maxHeight?.height, { type: '津波の高さ', unit: 'm', value: null });
  }
  assert.equal(published(document).text, undefined);
  assert.ok(
    published(document).comments?.warning?.text.startsWith('東日本大震災クラスの津波が来襲します。\n'),
  );
});

test('VTSE52: offshore observations have no area; a pending estimate is 推定中', () => {
  const document = convert('jma-official-samples-older', '61_11_03_120615_VTSE52.xml', 'VTSE52');
  const body = published(document) as TsunamiInformation.v1_1_0.PublicBodyVTSE52;
  assert.equal(body.tsunami.observations.length, 1);
  assert.equal(body.tsunami.observations[0]?.code, null);
  assert.equal(body.tsunami.observations[0]?.name, null);
  assert.deepEqual(body.tsunami.observations[0]?.stations[0]?.sensor, 'ＧＰＳ波浪計');
  assert.deepEqual(body.tsunami.estimations[2], {
    code: '250',
    name: '福島県',
    firstHeight: {
      arrivalTime: '2011-03-11T14:57:00+09:00',
      condition: '早いところでは既に津波到達と推定',
      revise: '追加',
    },
    maxHeight: { condition: '推定中', revise: '追加' },
  });
  assert.deepEqual(body.tsunami.estimations[1]?.maxHeight, {
    dateTime: '2011-03-11T15:15:00+09:00',
    height: { type: '津波の高さ', unit: 'm', value: '10', over: true },
    condition: '重要',
    revise: '更新',
  });
});
