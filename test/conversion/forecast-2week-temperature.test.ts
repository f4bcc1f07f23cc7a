import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { converterFor } from '../../src/conversion/registry.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixture, restFixtureIndex } from '../support/fixtures.ts';
import { convertFixture } from './gold.ts';

// The expected values below were read from the two JMA samples by hand.
const SUMMER = fixture('rest', '71_01_01_190327_VPCK70.xml');
const WINTER = fixture('rest', '71_01_02_190327_VPCK70.xml');

type Five = [string, string, string, string, string];

const converted = (path: string) => {
  const outcome = convertFixture(path, 'VPCK70');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document as typeof outcome.document & { body: Body };
};

interface Body {
  zone: {
    timeSeries: [{ timeDefines: unknown[]; items: { code: string; name: string; kinds: unknown[] }[] }];
  };
  station: {
    timeSeries: [{ timeDefines: unknown[]; items: { code: string; name: string; kinds: unknown[] }[] }];
  };
}

/** Five five-day means, timeId 1–5, each centred on its date (yyyy-mm-dd). */
const timeDefines = (dates: Five, names: Five) =>
  names.map((name, i) => ({
    timeId: String(i + 1),
    dateTime: `${dates[i]}T00:00:00+09:00`,
    duration: 'P5D',
    name,
  }));

const zone = (code: string, name: string, classes: Five) => ({
  code,
  name,
  kinds: [
    {
      type: '地域平均気温',
      average: classes.map((value, i) => ({
        refId: String(i + 1),
        type: '地域平均気温',
        comparison: { type: '前後２日の５日間平均・地域平均気温階級', value },
      })),
    },
  ],
});

const averages = (extreme: '最高気温' | '最低気温', values: Five, lower: Five, upper: Five, classes: Five) =>
  values.map((value, i) => ({
    refId: String(i + 1),
    type: `${extreme}の前後２日５日間平均値`,
    unit: '度',
    value,
    range: { type: `${extreme}の前後２日５日間平均値の予測範囲`, unit: '度', from: lower[i], to: upper[i] },
    comparison: { type: `${extreme}の前後２日５日間平均値の階級`, value: classes[i] },
  }));

/** A station, each extreme as [values, lower ends, upper ends, classes]. */
const station = (
  code: string,
  name: string,
  max: [Five, Five, Five, Five],
  min: [Five, Five, Five, Five],
) => ({
  code,
  name,
  kinds: [
    {
      type: '最低・最高平均気温',
      averageMaximums: averages('最高気温', ...max),
      averageMinimums: averages('最低気温', ...min),
    },
  ],
});

const REGIONS = [
  ['010101', '北海道日本海側'],
  ['010102', '北海道オホーツク海側'],
  ['010103', '北海道太平洋側'],
  ['010201', '東北日本海側'],
  ['010202', '東北太平洋側'],
  ['010300', '関東甲信地方'],
  ['010500', '北陸地方'],
  ['010400', '東海地方'],
  ['010602', '近畿日本海側'],
  ['010601', '近畿太平洋側'],
  ['010700', '中国地方'],
  ['010800', '四国地方'],
  ['010900', '九州北部地方（山口県を含む）'],
  ['011001', '九州南部'],
  ['011002', '奄美地方'],
  ['011100', '沖縄地方'],
];

test('both VPCK70 samples convert and validate against forecast-2week-temperature 1.0.0', () => {
  const samples = restFixtureIndex().filter((f) => f.type === 'VPCK70');
  assert.deepEqual(
    samples.map((f) => f.file),
    ['71_01_01_190327_VPCK70.xml', '71_01_02_190327_VPCK70.xml'],
  );
  for (const f of samples) {
    const outcome = convertFixture(f.path, f.type, 'a'.repeat(96));
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
    assert.deepEqual(outcome.document._schema, { type: 'forecast-2week-temperature', version: '1.0.0' });
    assert.equal(schemaViolation(outcome.schema, outcome.document), null);
  }
});

test('VPCK70 is converted as forecast-2week-temperature; the national VPZK70 stays weather-information', () => {
  assert.deepEqual(converterFor('VPCK70')?.schema, { type: 'forecast-2week-temperature', version: '1.0.0' });
  assert.deepEqual(converterFor('VPZK70')?.schema, { type: 'weather-information', version: '1.0.0' });
});

test('VPCK70 header: the five-day period, no event id, serial or headline', () => {
  const { body: _body, ...head } = converted(SUMMER);
  assert.deepEqual(head, {
    _originalId: 'TELEGRAM_ID',
    _schema: { type: 'forecast-2week-temperature', version: '1.0.0' },
    type: '地方季節予報（２週間気温予報）',
    title: '２週間気温予報',
    status: '通常',
    infoType: '発表',
    editorialOffice: '気象庁本庁',
    publishingOffice: ['気象庁地球環境・海洋部'],
    pressDateTime: '2017-08-23T05:02:10Z',
    reportDateTime: '2017-08-23T14:30:00+09:00',
    targetDateTime: '2017-08-31T00:00:00+09:00',
    targetDuration: 'P5D',
    eventId: null,
    serialNo: null,
    infoKind: '２週間気温予報',
    infoKindVersion: '1.0_0',
    headline: null,
  });
});

test('VPCK70 summer sample: regions and stations with their times, values, ranges and classes', () => {
  const { zone: zones, station: stations } = converted(SUMMER).body;
  const times = timeDefines(
    ['2017-08-31', '2017-09-01', '2017-09-02', '2017-09-03', '2017-09-04'],
    [
      '２９日-２日の５日間平均',
      '３０日-３日の５日間平均',
      '３１日-４日の５日間平均',
      '１日-５日の５日間平均',
      '２日-６日の５日間平均',
    ],
  );
  assert.deepEqual(zones.timeSeries[0].timeDefines, times);
  assert.deepEqual(stations.timeSeries[0].timeDefines, times);
  assert.deepEqual(
    zones.timeSeries[0].items.map(({ code, name }) => [code, name]),
    REGIONS,
  );
  assert.deepEqual(zones.timeSeries[0].items.slice(0, 3), [
    zone('010101', '北海道日本海側', ['-2', '-1', '0', '1', '2']),
    zone('010102', '北海道オホーツク海側', ['-3', '-2', '0', '2', '3']),
    zone('010103', '北海道太平洋側', ['-1', '-1', '-1', '-1', '0']),
  ]);
  assert.equal(stations.timeSeries[0].items.length, 64);
  assert.deepEqual(
    stations.timeSeries[0].items[0],
    station(
      '11016',
      '稚内',
      [
        ['22', '22', '22', '22', '21'],
        ['20', '19', '19', '19', '19'],
        ['25', '24', '24', '24', '24'],
        ['-2', '-1', '0', '1', '2'],
      ],
      [
        ['18', '17', '16', '16', '16'],
        ['16', '15', '14', '14', '14'],
        ['19', '19', '19', '19', '18'],
        ['-3', '-2', '0', '2', '3'],
      ],
    ),
  );
});

test('VPCK70 winter sample: below-zero values as written, every station of the telegram', () => {
  const { zone: zones, station: stations } = converted(WINTER).body;
  assert.deepEqual(
    zones.timeSeries[0].timeDefines,
    timeDefines(
      ['2018-01-23', '2018-01-24', '2018-01-25', '2018-01-26', '2018-01-27'],
      [
        '２１日-２５日の５日間平均',
        '２２日-２６日の５日間平均',
        '２３日-２７日の５日間平均',
        '２４日-２８日の５日間平均',
        '２５日-２９日の５日間平均',
      ],
    ),
  );
  assert.deepEqual(
    zones.timeSeries[0].items.at(-1),
    zone('011100', '沖縄地方', ['0', '-1', '-2', '-2', '-1']),
  );
  const items = stations.timeSeries[0].items;
  // 73 stations, not the summer sample's 64: this one has みなかみ, 大島, 松本 … and not 帯広.
  assert.equal(items.length, 73);
  const names = items.map((item) => item.name);
  for (const added of ['みなかみ', '大島', '松本', '高山', '大津', '舞鶴', '豊岡', '津山', '庄原', '厳原']) {
    assert.ok(names.includes(added), added);
  }
  assert.ok(!names.includes('帯広'));
  assert.deepEqual(
    items[1],
    station(
      '12442',
      '旭川',
      [
        ['-6', '-6', '-6', '-6', '-6'],
        ['-8', '-8', '-8', '-8', '-8'],
        ['-3', '-3', '-3', '-3', '-3'],
        ['-1', '-1', '-1', '-1', '-1'],
      ],
      [
        ['-15', '-15', '-15', '-15', '-15'],
        ['-19', '-19', '-19', '-19', '-19'],
        ['-11', '-11', '-11', '-11', '-12'],
        ['-1', '-1', '0', '-1', '-1'],
      ],
    ),
  );
  assert.deepEqual(
    items.at(-1),
    station(
      '94081',
      '石垣島',
      [
        ['20', '20', '19', '19', '20'],
        ['18', '18', '17', '17', '17'],
        ['22', '22', '22', '21', '22'],
        ['0', '-1', '-1', '-1', '-1'],
      ],
      [
        ['16', '15', '15', '15', '15'],
        ['14', '13', '12', '12', '13'],
        ['18', '17', '17', '17', '17'],
        ['0', '-1', '-1', '-1', '-1'],
      ],
    ),
  );
});

test('a VPCK70 cancellation (取消) converts with the body of the issue it withdraws, 取消 admitted by an amendment', () => {
  const xml = readFileSync(SUMMER, 'utf8');
  const cancelled = xml.replace('<InfoType>発表</InfoType>', '<InfoType>取消</InfoType>');
  assert.notEqual(cancelled, xml);
  const issue = convertTelegram(xml, 'VPCK70', 'x');
  const outcome = convertTelegram(cancelled, 'VPCK70', 'x');
  assert.ok(issue?.ok && outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.infoType, '取消');
  assert.deepEqual(outcome.document.body, issue.document.body);
});

test('a VPCK70 correction (訂正) converts like an issue', () => {
  const xml = readFileSync(SUMMER, 'utf8').replace('<InfoType>発表</InfoType>', '<InfoType>訂正</InfoType>');
  const outcome = convertTelegram(xml, 'VPCK70', 'x');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.infoType, '訂正');
});

test('a station value without its range is a conversion failure that names it, not a made-up range', () => {
  const lowerEnd3 =
    /<jmx_eb:Temperature type="最高気温の前後２日５日間平均値の予測範囲（下端）" unit="度" refID="3"[^>]*>[^<]*<\/jmx_eb:Temperature>/;
  const xml = readFileSync(SUMMER, 'utf8');
  const broken = xml.replace(lowerEnd3, ''); // the first is 稚内's
  assert.notEqual(broken, xml);
  const outcome = convertTelegram(broken, 'VPCK70', 'x');
  assert.ok(outcome && !outcome.ok);
  assert.match(outcome.reason, /station 11016: no 最高気温予測範囲（下端） for refID 3/);
});
