import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VPFD51', 'VPFW50']);

interface Series {
  timeDefines: Record<string, string>[];
  items: { code: string; name: string; kinds: Record<string, unknown>[] }[];
}
interface Body {
  region: { timeSeries: Series[] };
  station: { timeSeries: Series[] };
  reference?: { timeSeries: Series[]; statistics: Record<string, unknown>[] };
  additionForecasts?: unknown;
}

const convert = (file: string, type: string) => {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

const direction = (value: string, condition?: string) => ({
  type: '風向',
  unit: '８方位漢字',
  value,
  ...(condition ? { condition } : {}),
});

test('VPFD51 東京都府県天気予報: sentences, 6-hour and 3-hour series, station temperatures, written from the XML', () => {
  const document = convert('24_11_01_190925_VPFD51.xml', 'VPFD51');
  assert.equal(document.targetDuration, 'P1DT19H');
  assert.equal(document.eventId, null);
  assert.equal(document.headline, null);
  const body = document.body as Body;
  assert.equal(body.additionForecasts, undefined);
  assert.equal(body.region.timeSeries.length, 3);
  assert.equal(body.station.timeSeries.length, 2);

  const [day, sixHours, threeHours] = body.region.timeSeries as [Series, Series, Series];
  assert.deepEqual(day.timeDefines[0], {
    timeId: '1',
    dateTime: '2016-11-23T05:00:00+09:00',
    duration: 'PT19H',
    name: '今日',
  });
  const tokyo = day.items[0]!;
  assert.equal(tokyo.code, '130010');
  assert.equal(tokyo.name, '東京地方');
  assert.deepEqual(
    tokyo.kinds.map((k) => k.type),
    ['天気', '風', '波'],
  );
  assert.deepEqual(tokyo.kinds[0]!.weathers, [
    { refId: '1', code: '212', name: 'くもり後一時雨' },
    { refId: '2', code: '371', name: '雪か雨後くもり' },
  ]);
  assert.deepEqual((tokyo.kinds[0]!.details as unknown[])[0], {
    refId: '1',
    text: 'くもり　夜遅く　雨',
    base: { name: 'くもり' },
    becomings: [{ timeModifier: '夜遅く', name: '雨' }],
  });
  assert.deepEqual(tokyo.kinds[1]!.details, [
    {
      refId: '1',
      text: '北の風　はじめ　やや強く',
      base: { timeModifier: 'はじめ', direction: direction('北', 'やや強く') },
    },
    {
      refId: '2',
      text: '北の風　２３区西部　では　北の風　やや強く',
      base: { direction: direction('北') },
      subArea: { name: '２３区西部', base: { direction: direction('北', 'やや強く') } },
    },
  ]);
  assert.deepEqual((tokyo.kinds[2]!.details as unknown[])[0], {
    refId: '1',
    text: '１．５メートル　後　０．５メートル',
    base: { height: { type: '波高', unit: 'm', value: '1.5' } },
    becomings: [{ timeModifier: '後', height: { type: '波高', unit: 'm', value: '0.5' } }],
  });
  const ogasawara = day.items.find((item) => item.code === '130040')!;
  assert.deepEqual((ogasawara.kinds[0]!.details as unknown[])[1], {
    refId: '2',
    text: 'くもり　昼過ぎ　から　夕方　雨',
    base: { name: 'くもり' },
    temporaries: [{ timeModifier: '昼過ぎ　から　夕方', name: '雨' }],
  });

  assert.equal(sixHours.timeDefines.length, 7);
  assert.deepEqual(sixHours.items[0]!.kinds, [
    {
      type: '降水確率',
      probabilities: [
        ['1', '10', '雨'],
        ['2', '10', '雨'],
        ['3', '50', '雨'],
        ['4', '80', '雪か雨'],
        ['5', '80', '雪か雨'],
        ['6', '60', '雪か雨'],
        ['7', '20', '雨か雪'],
      ].map(([refId, value, condition]) => ({ refId, type: '６時間降水確率', unit: '%', value, condition })),
    },
  ]);

  assert.deepEqual(threeHours.timeDefines[0], {
    timeId: '1',
    dateTime: '2016-11-23T06:00:00+09:00',
    duration: 'PT3H',
  });
  const [weather, wind] = threeHours.items[0]!.kinds as [
    Record<string, unknown[]>,
    Record<string, unknown[]>,
  ];
  assert.deepEqual(weather.weathers![6], { refId: '7', name: '雨または雪' });
  assert.deepEqual(wind.directions![4], { refId: '5', ...direction('北東') });
  assert.deepEqual(wind.speedLevels![0], {
    refId: '1',
    type: '風速階級',
    value: '4',
    range: { type: '風速階級の範囲', unit: 'm/s', from: '10', to: '14' },
  });

  const [stationDay, stationThreeHours] = body.station.timeSeries as [Series, Series];
  assert.deepEqual(stationDay.items[0], {
    code: '44132',
    name: '東京',
    kinds: [
      {
        type: '気温',
        temperatures: [
          { refId: '1', type: '日中の最高気温', unit: '度', value: '12' },
          { refId: '2', type: '最高気温', unit: '度', value: '15' },
          { refId: '3', type: '朝の最低気温', unit: '度', value: '1' },
          { refId: '4', type: '日中の最高気温', unit: '度', value: '3' },
        ],
      },
    ],
  });
  assert.deepEqual(stationThreeHours.timeDefines.at(-1), {
    timeId: '15',
    dateTime: '2016-11-25T00:00:00+09:00',
  });
  const chichijima = stationThreeHours.items.find((item) => item.name === '父島')!;
  assert.equal(chichijima.code, '44301');
  assert.deepEqual((chichijima.kinds[0]!.temperatures as unknown[]).at(-1), {
    refId: '15',
    type: '気温',
    unit: '度',
    value: '23',
  });
});

test('VPFW50 兵庫県府県週間天気予報: 値なし days, predicted ranges, normals and 7-day thresholds, written from the XML', () => {
  const document = convert('27_02_01_130906_VPFW50.xml', 'VPFW50');
  assert.equal(document.targetDuration, 'P7D');
  const body = document.body as Body;
  const region = body.region.timeSeries[0]!;
  assert.deepEqual(region.timeDefines[0], {
    timeId: '1',
    dateTime: '2013-07-20T00:00:00+09:00',
    duration: 'P1D',
  });
  const [weather, probability, reliability] = region.items[0]!.kinds as Record<string, unknown[]>[];
  assert.deepEqual(region.items[0]!.code, '280000');
  assert.deepEqual(weather!.weathers![3], { refId: '4', code: '202', name: 'くもり一時雨' });
  assert.deepEqual(probability!.probabilities!.slice(0, 2), [
    { refId: '1', type: '日降水確率', unit: '%', value: null, condition: '値なし' },
    { refId: '2', type: '日降水確率', unit: '%', value: '20' },
  ]);
  assert.deepEqual(reliability!.reliabilityClasses!.slice(1, 3), [
    { refId: '2', type: '信頼度階級', value: null, condition: '値なし' },
    { refId: '3', type: '信頼度階級', value: 'C' },
  ]);

  const kobe = body.station.timeSeries[0]!.items[0]!;
  assert.equal(kobe.name, '神戸');
  const temperatures = kobe.kinds[0] as { type: string; minimums: unknown[]; maximums: unknown[] };
  assert.equal(temperatures.type, '最低・最高気温');
  assert.deepEqual(temperatures.minimums[0], {
    refId: '1',
    type: '最低気温',
    unit: '度',
    value: null,
    range: { type: '最低気温予測範囲', unit: '度', from: null, to: null },
    condition: '値なし',
  });
  assert.deepEqual(temperatures.maximums[6], {
    refId: '7',
    type: '最高気温',
    unit: '度',
    value: '31',
    range: { type: '最高気温予測範囲', unit: '度', from: '29', to: '33' },
  });

  const normals = body.reference!.timeSeries[0]!.items[0]!.kinds[0] as Record<string, unknown[]>;
  assert.deepEqual(normals.averageMinimums![1], {
    refId: '2',
    type: '最低気温平年値',
    unit: '度',
    value: '25.0',
  });
  assert.deepEqual(normals.averageMaximums![6], {
    refId: '7',
    type: '最高気温平年値',
    unit: '度',
    value: '31.5',
  });
  assert.deepEqual(body.reference!.statistics, [
    {
      type: '７日間平年値',
      period: { dateTime: { value: '2013-07-20T00:00:00+09:00' }, duration: 'P7D' },
      stations: [
        {
          code: '63518',
          name: '神戸',
          type: '降水量７日間合計階級閾値',
          thresholds: [
            ['最小値', '0.0'],
            ['かなり少ない', '0.1'],
            ['少ない', '4.6'],
            ['多い', '28.2'],
            ['かなり多い', '69.5'],
            ['最大値', '166.2'],
          ].map(([name, value]) => ({ type: `降水量７日間合計階級${name}`, unit: 'mm', value })),
        },
      ],
    },
  ]);
});

test('VPFD51 with a 独自予報 and an open-ended wind level (the sample edited): additionForecasts, range to over', () => {
  const sample = readFileSync(fixture('official', '24_11_01_190925_VPFD51.xml'), 'utf8');
  const addition =
    '<MeteorologicalInfos type="独自予報"><MeteorologicalInfo>' +
    '<DateTime>2016-11-23T05:00:00+09:00</DateTime><Duration>P2D</Duration>' +
    '<Item><Kind><Property><Type>独自予報</Type><Text>伊豆諸島では高波に注意</Text></Property></Kind>' +
    '<Area><Name>東京都</Name><Code>130000</Code></Area></Item>' +
    '</MeteorologicalInfo></MeteorologicalInfos></Body>';
  const xml = sample.replace('range="10 14" refID="1"', 'range="15" refID="1"').replace('</Body>', addition);
  const outcome = convertTelegram(xml, 'VPFD51', 'x');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as Body;
  assert.deepEqual(body.additionForecasts, [
    {
      type: '独自予報',
      period: { dateTime: { value: '2016-11-23T05:00:00+09:00' }, duration: 'P2D' },
      items: [{ code: '130000', name: '東京都', text: '伊豆諸島では高波に注意' }],
    },
  ]);
  const wind = body.region.timeSeries[2]!.items[0]!.kinds[1] as { speedLevels: { range: unknown }[] };
  assert.deepEqual(wind.speedLevels[0]!.range, {
    type: '風速階級の範囲',
    unit: 'm/s',
    from: '15',
    to: 'over',
  });
});
