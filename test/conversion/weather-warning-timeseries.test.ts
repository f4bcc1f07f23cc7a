import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

// The fixtures have no official conversion of VPWP50 (no gold pair): the spot checks below are read from the XML.
fixtureSchemaTests(['VPWP50']);

interface Series {
  timeDefines: { timeId: string; dateTime: string; duration: string; name: string }[];
  items: { code: string; name: string; dateTime: string; kinds: { properties: unknown[] }[] }[];
}

function timeSeries(): Series[] {
  const outcome = convertFixture(fixture('official', '81_01_04_250630_VPWP50.xml'), 'VPWP50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as { city: { type: string; timeSeries: Series[] } };
  assert.equal(body.city.type, '量的予想時系列（市町村等）');
  return body.city.timeSeries;
}

test('VPWP50 稚内市: the 3-hourly series (time ids 7–14), inundation risk and wind by sub-area', () => {
  const [hourly, daily, days] = timeSeries();
  assert.ok(daily && days);
  assert.deepEqual(
    hourly!.timeDefines.map((d) => d.timeId),
    ['7', '8', '9', '10', '11', '12', '13', '14'],
  );
  assert.deepEqual(hourly!.timeDefines[0], {
    timeId: '7',
    dateTime: '2023-06-23T00:00:00+09:00',
    duration: 'PT3H',
    name: '２３日未明',
  });
  const wakkanai = hourly!.items[0]!;
  assert.equal(wakkanai.code, '0121400');
  assert.equal(wakkanai.name, '稚内市');
  assert.equal(wakkanai.dateTime, '2023-06-22T23:00:00+09:00');
  const ids = ['7', '8', '9', '10', '11', '12', '13', '14'];
  assert.deepEqual(wakkanai.kinds[0], {
    status: '発表',
    dateTime: '2023-06-22T23:00:00+09:00',
    properties: [
      {
        type: '大雨浸水危険度',
        significancyPart: {
          base: {
            significances: ids.map((refId) => ({
              refId,
              type: '大雨浸水危険度',
              code: '11',
              name: '警戒レベル２未満',
            })),
          },
        },
      },
    ],
  });
  const wind = wakkanai.kinds[4]!.properties[0] as {
    type: string;
    windDirectionPart: { base: { locals: { name: string; directions: unknown[] }[] } };
  };
  assert.equal(wind.type, '風');
  assert.deepEqual(
    wind.windDirectionPart.base.locals.map((l) => l.name),
    ['陸上', '宗谷海峡'],
  );
  assert.deepEqual(
    wind.windDirectionPart.base.locals[0]!.directions,
    ids.map((refId) => ({ refId, type: '風向', unit: '８方位漢字', value: '北西', condition: '風雪' })),
  );
});

test('VPWP50 稚内市: the daily series, dryness risk and both humidity parts', () => {
  const [, , days] = timeSeries();
  assert.deepEqual(days!.timeDefines[1], {
    timeId: '2',
    dateTime: '2023-06-24T00:00:00+09:00',
    duration: 'PT24H',
    name: '２４日',
  });
  const [risk, dryness] = days!.items[0]!.kinds;
  assert.deepEqual(risk!.properties, [
    {
      type: '乾燥危険度',
      significancyPart: {
        base: {
          significances: ['1', '2'].map((refId) => ({
            refId,
            type: '乾燥危険度',
            code: '01',
            name: '注意報級未満',
          })),
        },
      },
    },
  ]);
  assert.deepEqual(dryness!.properties, [
    {
      type: '乾燥',
      humidityParts: [
        {
          base: {
            humidities: ['1', '2'].map((refId) => ({ refId, type: '実効湿度', unit: '%', value: '50' })),
          },
        },
        {
          base: {
            humidities: ['1', '2'].map((refId) => ({ refId, type: '最小湿度', unit: '%', value: '35' })),
          },
        },
      ],
    },
  ]);
});

test('VPWP50 稚内市 (issue of 05時): a humidity JMA leaves empty (description 値なし) is null with condition 値なし', () => {
  const outcome = convertFixture(fixture('rest', '81_01_01_241031_VPWP50.xml'), 'VPWP50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const days = (outcome.document.body as { city: { timeSeries: Series[] } }).city.timeSeries[2]!;
  assert.deepEqual(
    days.timeDefines.map((d) => d.name),
    ['２２日', '２３日', '２４日'],
  );
  const wakkanai = days.items[0]!;
  assert.equal(wakkanai.name, '稚内市');
  const humidities = (type: string, value: string) => [
    { refId: '1', type, unit: '%', value },
    { refId: '2', type, unit: '%', value },
    { refId: '3', type, unit: '%', value: null, condition: '値なし' },
  ];
  assert.deepEqual(wakkanai.kinds[1]!.properties, [
    {
      type: '乾燥',
      humidityParts: [
        { base: { humidities: humidities('実効湿度', '50') } },
        { base: { humidities: humidities('最小湿度', '35') } },
      ],
    },
  ]);
});
