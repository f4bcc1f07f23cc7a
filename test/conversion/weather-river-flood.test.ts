import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WeatherRiverFlood } from '@dmdata/telegram-json-types';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests, readFixture } from './gold.ts';

type Body = WeatherRiverFlood.v1_0_0.PublicBody;

goldPairTests('weather-river-flood');
fixtureSchemaTests(['VXKOii']);

/** Converts an XML text (a variant of a fixture) and checks it against the schema. */
function bodyOf(xml: string): Body {
  const outcome = convertTelegram(xml, 'VXKOii', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(schemaViolation(outcome.schema, outcome.document), null);
  return outcome.document.body as Body;
}

function converted(folder: 'official' | 'older', file: string): Body {
  const outcome = convertFixture(fixture(folder, file), 'VXKOii');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document.body as Body;
}

test('VXKO 六角川 氾濫警戒情報 (2022 sample): water levels with their levels, rainfall in mm, criteria', () => {
  const body = converted('official', '16_02_02_220728_VXKOii.xml');
  assert.deepEqual(body.target, {
    code: '890904000100',
    name: '六角川',
    kind: { code: '30', name: '氾濫警戒情報', condition: '洪水警報（発表）' },
  });
  const [series] = body.waterLevel!.timeSeries;
  assert.deepEqual(series!.timeDefines[0], {
    timeId: '1',
    dateTime: '2021-08-13T15:00:00+09:00',
    name: '現況',
  });
  assert.deepEqual(series!.timeDefines[6], {
    timeId: '7',
    dateTime: '2021-08-13T20:50:00+09:00',
    name: '６時間後',
  });
  const levels: [string, string][] = [
    ['2.53', '2'],
    ['3.29', '4'],
    ['3.25', '4'],
    ['3.08', '3'],
    ['2.85', '3'],
    ['2.54', '2'],
    ['2.30', '1'],
  ];
  assert.deepEqual(series!.items, [
    {
      code: '89090400010000021',
      name: '潮見橋',
      location: '武雄市',
      type: '水位',
      forecasts: levels.map(([value, level], i) => ({
        refId: String(i + 1),
        unit: 'm',
        value,
        level,
        condition: '正常',
      })),
    },
  ]);
  assert.deepEqual(body.rainfall!.timeSeries[0]!.items, [
    {
      name: '六角川流域',
      forecasts: [
        { refId: '1', unit: 'mm', value: '379' },
        { refId: '2', unit: 'mm', value: '50' },
      ],
    },
  ]);
  const [reference] = body.reference!;
  assert.equal(
    reference!.district,
    '佐賀県武雄市- 佐賀県嬉野市- 佐賀県杵島郡大町町- 佐賀県杵島郡江北町- 佐賀県杵島郡白石町-',
  );
  assert.deepEqual(reference!.sections, [
    '六角川\n　右岸：武雄市橘町地先から海まで\n　左岸：武雄市橘町地先から海まで',
  ]);
  assert.deepEqual(
    reference!.criteria.map((c) => [c.type, c.value, c.condition]),
    [
      ['レベル１水防団待機水位', '1.50', '有効'],
      ['レベル２氾濫注意水位', '2.50', '有効'],
      ['レベル３避難判断水位', '2.80', '有効'],
      ['レベル４氾濫危険水位', '3.10', '有効'],
      ['レベル４計画高水位等', '4.33', '有効'],
    ],
  );
});

test('VXKO 氾濫発生情報（氾濫水の予報）: flooded districts without station code, and the flood-water forecast', () => {
  const body = converted('older', '16_04_01_210630_VXKOii.xml');
  assert.deepEqual(body.target.kind, {
    code: '53',
    name: '氾濫発生情報（氾濫水の予報）',
    condition: '洪水警報',
  });
  assert.equal(body.supposition!.type, '浸水想定地区（氾濫発生情報）');
  assert.deepEqual(body.supposition!.kind, { code: '2', name: '浸水想定地区（氾濫発生情報）' });
  assert.equal(
    body.supposition!.description,
    '○×地点からの氾濫による浸水が想定される地区は以下のとおりです。※',
  );
  assert.deepEqual(body.supposition!.districts[0], {
    name: '○○県○○市',
    prefecture: { code: '00000', name: '○○県' },
    city: { code: '0000000', name: '○○市' },
    district: '○○地区 ○○地区 ○○地区',
  });
  const [flooded] = body.floodedWaters!;
  assert.equal(flooded!.code, '0000000000');
  assert.equal(flooded!.name, '○○川');
  assert.equal(flooded!.dateTime, '2019-05-27T09:00:00+09:00');
  assert.equal(
    flooded!.text,
    '○×地点からの氾濫により想定される浸水区域、浸水深、氾濫水の到達時刻は以下のとおりです。',
  );
  assert.equal(flooded!.assumptions.length, 5);
  assert.deepEqual(flooded!.assumptions[0], {
    district: '○市市役所',
    attainmentTime: { value: '2019-05-27T11:00:00+09:00', dubious: '頃' },
    attainmentDeepestTime: { value: '2019-05-27T12:00:00+09:00', dubious: '頃' },
    floodDepth: { from: '0', to: '0.5' },
  });
  assert.deepEqual(flooded!.assumptions[4], {
    district: '△市消防署',
    attainmentTime: { value: '2019-05-27T15:00:00+09:00', dubious: '頃' },
    attainmentDeepestTime: { value: '2019-05-27T18:00:00+09:00', dubious: '頃' },
    floodDepth: { from: '5.0', to: null },
  });
});

test('VXKO 氾濫発生情報: the flood water is named and the supposition written as JMA writes them, placeholder or real', () => {
  // The 2022 revision of the sample: JMA's fictitious names (○○川, code 0000000000; ○○県○○市).
  const sample = readFixture('jma-xml-rest/16_04_01_220728_VXKOii.xml');
  const placeholder = bodyOf(sample);
  assert.deepEqual(
    placeholder.floodedWaters!.map((w) => [w.code, w.name]),
    [['0000000000', '○○川']],
  );
  assert.equal(placeholder.supposition!.type, '浸水想定地区（氾濫発生情報）');
  assert.deepEqual(
    placeholder.supposition!.districts.map((d) => d.name),
    ['○○県○○市', '○○県△△市', '○○県'],
  );
  // The same telegram with real names in their place converts the same way.
  const real = bodyOf(
    sample
      .replace(
        /<Name>○○川<\/Name>(\s*)<Code>0000000000<\/Code>/u,
        '<Name>六角川</Name>$1<Code>8909040001</Code>',
      )
      .replace(
        /<Name>○○県○○市<\/Name>(\s*)<Prefecture>○○県<\/Prefecture>(\s*)<PrefectureCode>00000<\/PrefectureCode>(\s*)<City>○○市<\/City>(\s*)<CityCode>0000000<\/CityCode>/u,
        '<Name>佐賀県武雄市</Name>$1<Prefecture>佐賀県</Prefecture>$2<PrefectureCode>41000</PrefectureCode>$3<City>武雄市</City>$4<CityCode>4120600</CityCode>',
      ),
  );
  assert.deepEqual(
    real.floodedWaters!.map((w) => [w.code, w.name]),
    [['8909040001', '六角川']],
  );
  assert.deepEqual(real.supposition!.districts[0], {
    name: '佐賀県武雄市',
    prefecture: { code: '41000', name: '佐賀県' },
    city: { code: '4120600', name: '武雄市' },
    district: '○○地区 ○○地区 ○○地区',
  });
});
