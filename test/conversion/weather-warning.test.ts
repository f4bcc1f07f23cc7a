import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../telegrams/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests, readFixture } from './gold.ts';

const SAMPLES = 'dmdata-json/sample-telegrams/weather-warning';
const OLDER_CONVERTER =
  'sample made by an older version of the production converter, which left out condition 値なし next to ' +
  'value null (PAIRS.md: the vpww54_rjtd_* conversion of the same XML has it)';

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

goldPairTests(
  'weather-warning',
  Object.fromEntries(
    ['vpww54_jptk_20160212142209', 'vpww54_jptk_20161213204723'].map((name) => [
      `${SAMPLES}/${name}.json`,
      nullValuesWithoutCondition(`${SAMPLES}/${name}.json`),
    ]),
  ),
);
fixtureSchemaTests(['VPWW54', 'VPOA50']);

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
