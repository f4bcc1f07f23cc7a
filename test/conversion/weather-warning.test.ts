import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests, readFixture } from './gold.ts';

const SAMPLES = 'dmdata-json/sample-telegrams/weather-warning';
const OLDER_CONVERTER =
  'sample made by an older version of the production converter, which left out condition 値なし next to ' +
  'a time-line value null (PAIRS.md: the vpww54_rjtd_* conversion of the same XML has it)';

interface Forecast {
  value: string | null;
  condition?: string;
}
interface SampleBody {
  timeSeries?: {
    items: { kinds: { quantitative?: { locals: { forecasts?: Forecast[] }[] }[] }[] }[];
  }[];
}

/** Every time-line forecast of an official sample written `value: null` without a condition. */
function nullValuesWithoutCondition(sample: string): Record<string, string> {
  const body = (JSON.parse(readFixture(sample)) as { body: SampleBody }).body;
  const paths: Record<string, string> = {};
  body.timeSeries?.forEach((series, s) =>
    series.items.forEach((item, i) =>
      item.kinds.forEach((kind, k) =>
        kind.quantitative?.forEach((q, n) =>
          q.locals.forEach((local, l) =>
            local.forecasts?.forEach((forecast, f) => {
              if (forecast.value === null && forecast.condition === undefined) {
                const path = `$.body.timeSeries[${s}].items[${i}].kinds[${k}].quantitative[${n}].locals[${l}].forecasts[${f}].condition`;
                paths[path] = OLDER_CONVERTER;
              }
            }),
          ),
        ),
      ),
    ),
  );
  return paths;
}

// The two vpww54_jptk_* samples render XML that the production service also converted with
// condition 値なし (vpww54_rjtd_20161213204723 is the same XML as vpww54_jptk_20161213204723,
// different only there): no converter can equal both, and Namazu writes what the service does now.
goldPairTests(
  'weather-warning',
  Object.fromEntries(
    ['vpww54_jptk_20160212142209', 'vpww54_jptk_20161213204723'].map((name) => [
      `${SAMPLES}/${name}.json`,
      nullValuesWithoutCondition(`${SAMPLES}/${name}.json`),
    ]),
  ),
);
fixtureSchemaTests([
  'VPWW54',
  'VPOA50',
  'VPWW55',
  'VPWW56',
  'VPWW57',
  'VPWW58',
  'VPWW59',
  'VPWW60',
  'VPWW61',
  'VPWS50',
]);

function converted(file: string, type: string) {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document as unknown as { _schema: unknown; body: Record<string, unknown[]> };
}

test('VPWW54 徳島県 高潮警報: areas without warnings, the editing mark, and a risk and tide series with no values', () => {
  const { _schema, body } = converted('15_15_01_220314_VPWW54.xml', 'VPWW54');
  assert.deepEqual(_schema, { type: 'weather-warning', version: '1.0.0' });
  const stormSurge = [{ code: '08', name: '高潮警報', status: '発表' }];
  assert.deepEqual(body.prefectures, [
    {
      code: '360000',
      name: '徳島県',
      kinds: stormSurge,
      changeStatus: '警報・注意報種別に変化有',
      fullStatus: '一部',
      editingMark: false,
    },
  ]);
  assert.deepEqual(body.regions![1], {
    code: '360020',
    name: '南部',
    kinds: [],
    condition: '発表警報・注意報はなし',
  });
  assert.deepEqual(body.areas![0], {
    code: '360011',
    name: '徳島・鳴門',
    kinds: stormSurge,
    changeStatus: '警報・注意報種別に変化有',
    fullStatus: '一部',
    editingMark: true,
  });
  assert.deepEqual(body.cities![0], {
    code: '3620100',
    name: '徳島市',
    kinds: [],
    condition: '発表警報・注意報はなし',
  });
  const [series] = body.timeSeries as { timeDefines: unknown[]; items: unknown[] }[];
  assert.equal(series!.timeDefines.length, 9);
  assert.deepEqual(series!.timeDefines[0], {
    timeId: '1',
    dateTime: '2021-09-14T12:00:00+09:00',
    duration: 'PT3H',
    name: '１４日昼過ぎ',
  });
  const ids = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  const levels = ['30', '30', '30', '00', '00', '00', '00', '00', '00'];
  assert.deepEqual(series!.items, [
    {
      code: '3640300',
      name: '藍住町',
      kinds: [
        {
          code: '08',
          name: '高潮警報',
          riskDegrees: [
            {
              type: '高潮危険度',
              locals: [
                {
                  name: null,
                  significances: ids.map((refId, i) => ({
                    refId,
                    code: levels[i],
                    name: levels[i] === '30' ? '警報級' : '注意報級未満',
                  })),
                },
              ],
            },
          ],
          quantitative: [
            {
              type: '最高潮位',
              forecastType: 'timeline',
              locals: [
                {
                  name: null,
                  forecasts: ids.map((refId) => ({ refId, unit: 'm', value: null, condition: '値なし' })),
                },
              ],
            },
          ],
        },
      ],
    },
  ]);
});

test('VPWW54 値なし (gold pair vpww54_rjtd_20161213204723): value null with condition 値なし on a time line', () => {
  const pair = 'dmdata-json/sample-telegrams/weather-warning/vpww54_rjtd_20161213204723.json';
  const outcome = convertFixture(fixture('official', '15_13_01_161226_VPWW54.xml'), 'VPWW54');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  type Body = {
    timeSeries: { items: { kinds: { quantitative: { locals: { forecasts: unknown[] }[] }[] }[] }[] }[];
  };
  const windDirections = (body: Body) =>
    body.timeSeries[0]!.items[0]!.kinds[0]!.quantitative[0]!.locals[0]!.forecasts;
  // 東京都 (the first item), 風向 at time ids 8 and 9: <jmx_eb:WindDirection condition="値なし" refID="8" …/>.
  const expected = [
    { refId: '8', unit: '８方位漢字', value: null, condition: '値なし' },
    { refId: '9', unit: '８方位漢字', value: null, condition: '値なし' },
  ];
  assert.deepEqual(windDirections(outcome.document.body as Body).slice(7, 9), expected);
  const official = (JSON.parse(readFixture(pair)) as { body: Body }).body;
  assert.deepEqual(windDirections(official).slice(7, 9), expected);
});

test('VPWW54 値なし: a whole-period value is null with condition 値なし, as on a time line', () => {
  const tokushima = 'jma-xml/jma-official-samples/15_15_01_220314_VPWW54.xml';
  const quantitative = (xml: string) => {
    const outcome = convertTelegram(xml, 'VPWW54', 'id');
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
    assert.equal(schemaViolation(outcome.schema, outcome.document), null);
    const body = outcome.document.body as {
      timeSeries: { items: { kinds: { quantitative?: Record<string, unknown>[] }[] }[] }[];
    };
    return body.timeSeries[0]!.items[0]!.kinds[0]!.quantitative![0]!;
  };
  // As JMA writes it: nine 最高潮位 values, each refID'd and 値なし.
  const timeline = quantitative(readFixture(tokushima)) as { locals: { forecasts: object[] }[] };
  assert.deepEqual(timeline.locals[0]!.forecasts[0], {
    refId: '1',
    unit: 'm',
    value: null,
    condition: '値なし',
  });
  // The same value for the whole period (no refID, one value).
  const whole = readFixture(tokushima)
    .replace(/<jmx_eb:TidalLevel condition="値なし" refID="[2-9]"[^>]*\/>\s*/gu, '')
    .replace('condition="値なし" refID="1" type="最高潮位"', 'condition="値なし" type="最高潮位"');
  assert.deepEqual(quantitative(whole), {
    type: '最高潮位',
    forecastType: 'whole',
    locals: [{ name: null, forecast: { unit: 'm', value: null, condition: '値なし' } }],
  });
});

test('VPOA50 石狩・空知・後志: an area without the information keeps its なし kind', () => {
  const { body } = converted('18_03_01_190412_VPOA50.xml', 'VPOA50');
  const issued = [{ code: '1', name: '記録的短時間大雨情報', status: '発表' }];
  assert.deepEqual(body, {
    prefectures: [
      { code: '016010', name: '石狩地方', kinds: issued },
      { code: '016020', name: '空知地方', kinds: [{ code: '0', name: 'なし', status: 'なし' }] },
      { code: '016030', name: '後志地方', kinds: issued },
    ],
  });
});

test('VPWW55 稚内市 (R06): level-4 heavy-rain warning with its inundation risk, schema 1.1.0', () => {
  const { _schema, body } = converted('15_16_03_241226_VPWW55.xml', 'VPWW55');
  assert.deepEqual(_schema, { type: 'weather-warning', version: '1.1.0' });
  assert.deepEqual(body.prefectures![0], {
    code: '011000',
    name: '宗谷地方',
    kinds: [
      {
        code: '43',
        name: 'レベル４大雨危険警報',
        status: '発表',
        lastKind: { code: '03', name: 'レベル３大雨警報' },
      },
    ],
    changeStatus: '警報・注意報種別に変化有',
    fullStatus: '一部',
    editingMark: false,
  });
  assert.deepEqual(body.cities![0], {
    code: '0121400',
    name: '稚内市',
    kinds: [
      {
        code: '43',
        name: 'レベル４大雨危険警報',
        status: '発表',
        lastKind: { code: '03', name: 'レベル３大雨警報' },
        properties: [
          {
            type: '大雨浸水危険度',
            significancyPart: {
              base: { significancy: { type: '大雨浸水危険度', code: '41', name: '警戒レベル４相当' } },
            },
          },
        ],
      },
    ],
    changeStatus: '警報・注意報種別に変化有',
  });
  for (const part of ['stormSurgeSections', 'offices', 'references', 'comment']) {
    assert.equal(part in body, false, part);
  }
});

test('VPWW57 舞鶴湾 (R06): storm-surge section with per-station risk, criteria period, tide levels; offices and references', () => {
  const { body } = converted('15_16_02_250630_VPWW57.xml', 'VPWW57');
  assert.deepEqual(body.cities![0], {
    code: '2610000',
    name: '京都市',
    kinds: [],
    condition: '発表警報・注意報はなし',
  });
  const station = '舞鶴港海岸';
  assert.deepEqual(body.stormSurgeSections, [
    {
      code: '2635999',
      name: '舞鶴湾',
      codeType: '高潮予報区間',
      subCity: { names: ['舞鶴市'] },
      location: '丹後沿岸',
      kinds: [
        {
          code: '48',
          name: 'レベル４高潮危険警報',
          status: '発表',
          lastKind: { code: '08', name: 'レベル３高潮警報' },
          properties: [
            {
              type: '高潮危険度',
              significancyPart: {
                base: {
                  locals: [
                    {
                      name: station,
                      significancy: { type: '高潮危険度', code: '41', name: '警戒レベル４相当' },
                    },
                  ],
                },
              },
              criteriaPeriod: {
                base: {
                  locals: [
                    {
                      name: station,
                      sentence:
                        '２３日６時から１２時までに、水位（潮位）が堤防を越え、舞鶴市では浸水する恐れがあります。',
                      criterion: { code: '41', name: '警戒レベル４相当' },
                      time: '2020-06-23T06:00:00+09:00',
                      duration: 'PT6H',
                    },
                  ],
                },
              },
            },
            {
              type: '高潮基準超過',
              waveHeightPart: {
                base: {
                  locals: [
                    {
                      name: station,
                      waveHeight: { type: 'うちあげ高水位', unit: 'm', value: '2' },
                      time: '2020-06-23T06:00:00+09:00',
                    },
                  ],
                },
              },
              tidalLevelPart: {
                base: {
                  tidalLevel: { type: '潮位', unit: 'm', value: '2.3' },
                  time: '2020-06-23T07:00:00+09:00',
                },
              },
            },
            {
              type: '高潮ピーク',
              waveHeightPart: {
                base: {
                  locals: [
                    {
                      name: station,
                      waveHeight: { type: 'うちあげ高水位', unit: 'm', value: '5' },
                      time: '2020-06-23T08:00:00+09:00',
                    },
                  ],
                },
              },
              tidalLevelPart: {
                base: {
                  tidalLevel: { type: '潮位', unit: 'm', value: '4.5' },
                  time: '2020-06-23T08:30:00+09:00',
                },
              },
            },
          ],
        },
      ],
      changeStatus: '警報・注意報種別に変化有',
    },
  ]);
  assert.deepEqual(body.offices, [
    { type: '都道府県', name: '京都府建設交通部' },
    { type: '気象関係', name: '京都地方気象台' },
  ]);
  assert.deepEqual(body.references, [
    {
      code: '2635999',
      name: '舞鶴湾',
      codeType: '高潮予報区間',
      subCity: { names: ['舞鶴市'], codes: ['2620200'] },
      location: '丹後沿岸',
      chargeSections: ['京都府舞鶴市東神崎から舞鶴市千歳まで'],
      stations: [
        {
          name: station,
          location: '舞鶴市字竹屋地先',
          criteria: [
            {
              waterLevels: [
                { type: '堤防天端高', unit: 'm', value: '2.0', condition: '有効' },
                { type: '設計高潮位', unit: 'm', value: '1.8', condition: '有効' },
              ],
            },
          ],
        },
      ],
    },
  ]);
});

test('VPWW56 (R06): the landslide comment and the offices', () => {
  const { body } = converted('15_16_01_241031_VPWW56.xml', 'VPWW56');
  const comment = body.comment as unknown as { texts: { type: string; text: string }[] };
  assert.equal(comment.texts.length, 1);
  assert.equal(comment.texts[0]!.type, 'レベル４土砂災害危険警報の補足情報');
  assert.ok(comment.texts[0]!.text.startsWith('避難が必要となる危険な状況となっています。'));
  assert.deepEqual(body.offices, [
    { type: '補足情報担当', name: '宗谷総合振興局' },
    { type: '気象関係', name: '稚内地方気象台' },
  ]);
});

test('VPWW56 of the December 2024 samples: type is Control/Title as written, …（土砂災害）, and that title alone is admitted', () => {
  const outcome = convertFixture(fixture('rest', '15_17_01_241226_VPWW56.xml'), 'VPWW56');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const document = outcome.document as unknown as {
    type: string;
    title: string;
    body: { regions: { code: string; name: string; kinds: unknown[] }[] };
  };
  assert.equal(document.type, '気象警報・注意報（Ｒ０６）（土砂災害）');
  assert.equal(document.title, '島根県土砂災害警報・注意報');
  assert.deepEqual(document.body.regions[0], {
    code: '320010',
    name: '東部',
    kinds: [
      {
        code: '49',
        name: 'レベル４土砂災害危険警報',
        status: '発表',
        lastKind: { code: '09', name: 'レベル３土砂災害警報' },
      },
    ],
    changeStatus: '警報・注意報種別に変化有',
    fullStatus: '一部',
    editingMark: false,
  });
  // The amendment adds that one title: the package's own still validates, another is refused.
  assert.equal(
    schemaViolation(outcome.schema, { ...document, type: '気象警報・注意報（Ｒ０６）（土砂）' }),
    null,
  );
  assert.match(
    schemaViolation(outcome.schema, { ...document, type: '気象警報・注意報（Ｒ０６）（土砂災害警報）' }) ??
      '',
    /^\/type /,
  );
});

test('VPWW58 (R06): a lifted warning keeps its last kind and has no properties', () => {
  const xml = readFixture('jma-xml/jma-official-samples/15_16_04_250630_VPWW58.xml').replace(
    /<Warning type="気象警報・注意報（市町村等）">\s*<Item>\s*<Kind>[\s\S]*?<\/Kind>/u,
    `<Warning type="気象警報・注意報（市町村等）"><Item><Kind><Name>強風注意報</Name><Code>15</Code><Status>解除</Status>
<LastKind><Name>強風注意報</Name><Code>15</Code></LastKind></Kind>`,
  );
  const outcome = convertTelegram(xml, 'VPWW58', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const city = (outcome.document.body as { cities: { kinds: unknown[] }[] }).cities[0]!;
  assert.deepEqual(city.kinds, [
    { code: '15', name: '強風注意報', status: '解除', lastKind: { code: '15', name: '強風注意報' } },
  ]);
});
