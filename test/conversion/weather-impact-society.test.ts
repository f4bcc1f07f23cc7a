import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests, readFixture } from './gold.ts';

const OLDER_SAMPLE_VERSION = {
  '$._schema.version': 'the official sample is weather-impact-society 1.0.0; VPCI50 converts to 1.0.1 now',
};
goldPairTests('weather-impact-society', {
  'dmdata-json/sample-telegrams/weather-impact-society/vpci50_jpsn_20080805110000.json': OLDER_SAMPLE_VERSION,
  'dmdata-json/sample-telegrams/weather-impact-society/vpci50_jpsn_20090810105821.json': OLDER_SAMPLE_VERSION,
  'dmdata-json/sample-telegrams/weather-impact-society/vpci50_rjtd_20080719110000.json': OLDER_SAMPLE_VERSION,
});
fixtureSchemaTests(['VPZI50', 'VPCI50', 'VPFI50']);

const converted = (folder: 'official' | 'older', file: string, type: string) => {
  const outcome = convertFixture(fixture(folder, file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

test('VPZI50 長期間の高温と少雨: headed texts, statistics with temperature and ratios, the closing text', () => {
  const document = converted('official', '29_01_01_140129_VPZI50.xml', 'VPZI50');
  assert.deepEqual(document._schema, { type: 'weather-impact-society', version: '1.0.1' });
  assert.equal(document.validDateTime, '2024-01-21T16:00:00+09:00');
  const body = document.body as Record<string, unknown> & {
    statistics: { stations: Record<string, unknown>[] }[];
  };
  assert.deepEqual(Object.keys(body), ['target', 'targetTime', 'mainTexts', 'statistics', 'comment']);
  assert.deepEqual(body.target, { code: '010000', name: '全国' });
  assert.deepEqual(body.targetTime, {
    dateTime: { value: '2022-11-26T00:00:00+09:00', validFormat: 'yyyy-mm-dd' },
    duration: 'P418D',
  });
  assert.deepEqual(body.mainTexts, [
    {
      text:
        '【概況】\n東日本と西日本では１１月下旬頃から、移動性の高気圧に覆われて晴れる日が多く、気温が高く降水量の少ない状態が続いています。' +
        '\n\n【今後の見通し】\nこの状態は、今後１週間程度は続く見込みです。' +
        '\n\n【防災事項】\n農作物の管理等に十分注意してください。',
      zones: [
        { code: '020200', name: '東日本' },
        { code: '020300', name: '西日本' },
      ],
    },
  ]);
  assert.equal(body.statistics.length, 1);
  const [statistic] = body.statistics;
  assert.deepEqual(
    { ...statistic, stations: undefined },
    {
      type: '気象官署及び特別地域気象観測所',
      period: {
        dateTime: { value: '2023-11-26T00:00:00+09:00', validFormat: 'yyyy-mm-dd' },
        duration: 'P45D',
        name: '１１月２６日から１月９日まで',
      },
      text: '平均気温と降水量（１１月２６日から１月９日まで）（速報値）',
      stations: undefined,
    },
  );
  assert.deepEqual(statistic?.stations[0], {
    code: '47662',
    name: '東京',
    type: '天候の状況（速報値）',
    observedValues: [
      { type: '平均気温', unit: '°', value: '9.2' },
      { type: '平均気温平年差', unit: '°', value: '+1.6' },
      { type: '降水量', unit: 'mm', value: '19.5' },
      { type: '総降水量平年比', unit: '%', value: '23' },
    ],
  });
  assert.equal(
    body.comment,
    '今後の気象情報等に留意してください。\n観測値と平年比（平年差）は、気象庁ホームページに掲載しています。\n' +
      '気象庁ホームページ　＞　各種データ・資料　＞　最新の気象データ　＞　天候の状況\nを参照ください。',
  );
});

test('VPFI50 府県天候情報 (legacy 1.0.0): prefectures, AMeDAS stations with remarks and value conditions, no comment', () => {
  const document = converted('older', '31_01_01_091210_VPFI50.xml', 'VPFI50');
  assert.deepEqual(document._schema, { type: 'weather-impact-society', version: '1.0.0' });
  const body = document.body as Record<string, unknown> & {
    mainTexts: Record<string, unknown>[];
    statistics: { type: string; stations: Record<string, unknown>[] }[];
  };
  assert.ok(String(body.notice).startsWith('お知らせ　これは架空のサンプルです。\nこの情報は、'));
  assert.deepEqual(body.target, { code: '030000', name: '岩手県' });
  assert.deepEqual(body.mainTexts[0]?.prefectures, [{ code: '030000', name: '岩手県' }]);
  assert.equal(body.mainTexts[0]?.zones, undefined);
  assert.deepEqual(
    body.statistics.map((s) => s.type),
    ['気象官署及び特別地域気象観測所', 'アメダス'],
  );
  const amedas = body.statistics[1]!.stations;
  assert.deepEqual(
    amedas.find((s) => s.name === '若柳'),
    {
      code: '33776',
      name: '若柳',
      type: '天候の状況（速報値）',
      remark: '８月下旬の値では、日照時間が少ない記録の第３位を更新しました。',
      observedValues: [
        { type: '日照時間', unit: 'h', value: '2.3' },
        { type: '日照時間合計平年比', unit: '%', value: '3' },
      ],
    },
  );
  assert.deepEqual(amedas.find((s) => s.name === '一関')?.observedValues, [
    { type: '日照時間', unit: 'h', value: '22.4', condition: '準正常' },
    { type: '日照時間合計平年比', unit: '%', value: '26' },
  ]);
  assert.deepEqual(amedas.find((s) => s.name === '普代')?.observedValues, [
    { type: '日照時間', unit: 'h', value: '33.0', condition: '資料不足' },
    { type: '日照時間合計平年比', unit: '%', value: null, condition: '値なし' },
  ]);
  // The XML's only comment is its 末文 (今後、気象台から発表される気象情報に留意して下さい。), which the
  // production service's VPFI50 conversion leaves out.
  assert.equal('comment' in body, false);
});

test('observed values: every 度 is written °, temperatures and directions alike', () => {
  // The 2024 VPZI50 sample writes 平均気温 and 平均気温平年差 in 度; 東京's 平均気温平年差 is replaced
  // here by a wind direction in degrees (jmx_eb:WindDirection), which JMA's 天候情報 samples lack.
  const xml = readFixture('jma-xml/jma-official-samples/29_01_01_140129_VPZI50.xml').replace(
    '<jmx_eb:Comparison type="平均気温平年差" unit="度">+1.6</jmx_eb:Comparison>',
    '<jmx_eb:WindDirection type="最多風向" unit="度">320</jmx_eb:WindDirection>',
  );
  const outcome = convertTelegram(xml, 'VPZI50', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(schemaViolation(outcome.schema, outcome.document), null);
  const body = outcome.document.body as { statistics: { stations: { observedValues: unknown[] }[] }[] };
  assert.deepEqual(body.statistics[0]!.stations[0]!.observedValues.slice(0, 2), [
    { type: '平均気温', unit: '°', value: '9.2' },
    { type: '最多風向', unit: '°', value: '320' },
  ]);
  const units = body.statistics.flatMap((s) =>
    s.stations.flatMap((station) => station.observedValues.map((v) => (v as { unit: string }).unit)),
  );
  assert.equal(units.includes('度'), false);
});

test('comment: the 末文 of a VPZI50 or VPCI50; other comment texts (参考事項) are left out', () => {
  const closing = '今後、気象台から発表される気象情報に留意して下さい。';
  const reference = '梅雨明けを特定しなかった年';
  // Both samples have a Comment; it is replaced by the given texts.
  const withComment = (file: string, texts: string) =>
    readFixture(`jma-xml/jma-official-samples/${file}`).replace(
      /<Comment>[\s\S]*?<\/Comment>/u,
      `<Comment>${texts}</Comment>`,
    );
  const commentOf = (xml: string, type: string) => {
    const outcome = convertTelegram(xml, type, 'id');
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
    assert.equal(schemaViolation(outcome.schema, outcome.document), null);
    return (outcome.document.body as { comment?: string }).comment;
  };
  // 梅雨の時期に関する東北地方気象情報: its own comment is a 参考事項 only.
  assert.equal(
    commentOf(readFixture('jma-xml/jma-official-samples/30_03_01_091210_VPCI50.xml'), 'VPCI50'),
    undefined,
  );
  assert.equal(
    commentOf(
      withComment(
        '30_03_01_091210_VPCI50.xml',
        `<Text type="参考事項">${reference}</Text><Text type="末文">${closing}</Text>`,
      ),
      'VPCI50',
    ),
    closing,
  );
  assert.equal(
    commentOf(withComment('29_01_01_140129_VPZI50.xml', `<Text type="末文">${closing}</Text>`), 'VPZI50'),
    closing,
  );
});

test('statistics: every station item in the order JMA lists it, also when no 表題 item comes first', () => {
  const stationsOf = (statistic: { stations: { code: string }[] }) => statistic.stations.map((s) => s.code);
  // 地方天候情報: JMA lists 仙台 (47590) before 山形 (47588) and the official conversion keeps that
  // order (gold pair vpci50_jpsn_20080805110000), so stations are not ordered by code.
  const tohoku = converted('official', '30_02_01_100915_VPCI50.xml', 'VPCI50').body as {
    statistics: { text?: string; stations: { code: string }[] }[];
  };
  assert.deepEqual(tohoku.statistics.map(stationsOf), [
    ['47575', '47582', '47584'],
    ['47590', '47588', '47595'],
  ]);
  // 府県天候情報: the アメダス statistic has no 表題 item; its first item is already a station (二戸),
  // which is listed like every other, and the statistic has no text.
  const iwate = converted('older', '31_01_01_091210_VPFI50.xml', 'VPFI50').body as {
    statistics: { text?: string; stations: { code: string; name: string; observedValues: unknown[] }[] }[];
  };
  const amedas = iwate.statistics[1]!;
  assert.equal(amedas.text, undefined);
  assert.equal(amedas.stations.length, 20);
  assert.deepEqual(amedas.stations[0], {
    code: '33071',
    name: '二戸',
    type: '天候の状況（速報値）',
    observedValues: [
      { type: '日照時間', unit: 'h', value: '38.6' },
      { type: '日照時間合計平年比', unit: '%', value: '39' },
    ],
  });
  assert.deepEqual(stationsOf(iwate.statistics[0]!), ['47584', '47585', '47512']);
});
