import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { weatherCommentary } from '../../src/conversion/schemas/weather-commentary.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';
import { allRestXmlFixtures, fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VPBS50', 'VPZJ51', 'VPCJ51', 'VPFJ51', 'VMCJ53', 'VMCJ54', 'VMCJ55']);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const convert = (file: string, type: string): Json => {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

const sentenceSection = (type: string, dateTime: string, propertyType: string, text: string) => ({
  type,
  infos: [
    {
      dateTime,
      items: [{ kinds: [{ properties: [{ type: propertyType, texts: [{ type: '本文', text }] }] }] }],
    },
  ],
  text,
});

test('VPBS50 千葉県気象防災速報 (線状降水帯発生), written from the XML', () => {
  const document = convert('82_01_01_241031_VPBS50.xml', 'VPBS50');
  assert.equal(document.type, '府県気象防災速報');
  assert.equal(document.serialNo, '2');
  const areas = [
    ['120010', '北西部'],
    ['120020', '北東部'],
    ['120030', '南部'],
  ];
  const codeType = '気象情報／府県予報区・細分区域等';
  assert.deepEqual(document.body, {
    informationTags: [
      { tagNames: ['線状降水帯発生'], areas: areas.map(([code, name]) => ({ code, codeType, name })) },
    ],
    observation: {
      type: '観測実況',
      infos: [
        {
          dateTime: '2023-09-08T10:10:00+09:00',
          items: areas.map(([code, name]) => ({
            code,
            codeType,
            name,
            kinds: [
              {
                properties: [
                  {
                    type: '気象現象の実況',
                    eventPart: {
                      event: {
                        type: '線状降水帯',
                        eventName: '線状降水帯発生',
                        time: '2023-09-08T10:10:00+09:00',
                      },
                    },
                  },
                ],
              },
            ],
          })),
        },
      ],
    },
  });
});

test('VPCJ51 関東甲信地方気象解説情報: tags and the three sentence sections, written from the XML', () => {
  const body = convert('84_01_01_241226_VPCJ51.xml', 'VPCJ51').body as Json;
  assert.deepEqual(body.informationTags, [
    {
      tagNames: ['強い冬型', '大雪'],
      areas: [{ code: '010300', codeType: '全国・地方予報区等', name: '関東甲信地方' }],
    },
  ]);
  const dateTime = '2023-01-20T15:00:00+09:00';
  assert.deepEqual(
    body.weatherSummary,
    sentenceSection(
      '概況',
      dateTime,
      '気象概況',
      '　２４日は低気圧が発達しながら北日本からオホーツク海付近に進み、その後２５日頃にかけて日本の上空にはこの冬一番の強い寒気が流れ込み、強い冬型の気圧配置となる見込みです。',
    ),
  );
  assert.equal(body.disasterPreventionInfo.type, '防災事項');
  assert.equal(
    body.disasterPreventionInfo.text,
    '　２４日から２５日頃にかけて、関東甲信地方では、長野県北部と関東地方北部の山沿いや山地を中心に大雪となるおそれがあります。\n　大雪による交通障害や施設への被害に注意・警戒してください。',
  );
  assert.equal(body.additionalInfo.type, '付加情報');
  assert.equal(body.additionalInfo.infos[0].items[0].kinds[0].properties[0].type, '補足事項');
  assert.equal(body.observation, undefined);
  assert.equal(body.forecast, undefined);
});

test('VPFJ51 東京都気象解説情報（台風第１３号）: typhoon tags, observed records, forecast series, written from the XML', () => {
  const body = convert('85_01_01_250630_VPFJ51.xml', 'VPFJ51').body as Json;
  const [tag] = body.informationTags;
  assert.deepEqual(tag.tagNames, ['台風', '大雨', '落雷', '突風', '強風', '高波']);
  assert.deepEqual(tag.typhoonNumbers, ['T2313']);
  assert.deepEqual(tag.tcNumbers, ['TC2315']);
  assert.equal(tag.areas.length, 3);

  const rain = body.observation.timeSeries[0];
  assert.deepEqual(rain.timeDefines, [
    {
      timeId: '1',
      dateTime: '2023-09-06T14:00:00+09:00',
      duration: 'P1DT2H',
      name: '６日１４時から７日１６時まで',
    },
  ]);
  assert.deepEqual(rain.items[0].kinds[0].properties[0].texts, [
    { type: '解説', text: '' },
    { refId: '1', type: '時系列解説', text: '６日１４時から７日１６時までの降水量（アメダスによる速報値）' },
    { type: '気象要素', text: '降水量（アメダスによる速報値）' },
  ]);
  assert.deepEqual(rain.items[1], {
    code: '44226',
    codeType: 'アメダス地点番号',
    name: '三宅島',
    location: '東京都',
    kinds: [
      {
        properties: [
          {
            type: '雨の実況',
            precipitationParts: [
              {
                sentence: '５２．０ミリ　※観測史上１位',
                precipitations: [{ refId: '1', type: '降水量', unit: 'mm', value: '52.0' }],
                time: '2023-09-07T16:00:00+09:00',
                remark: '観測史上１位',
              },
            ],
          },
        ],
      },
    ],
  });
  assert.deepEqual(body.observation.timeSeries[1].items[1].kinds[0].properties[1].windPart, {
    sentence: '１３．０メートル　北北東　（７日１１時５０分）　※観測史上１位',
    directions: [{ refId: '1', type: '風向', unit: '１６方位漢字', value: '北北東' }],
    speeds: [{ refId: '1', type: '最大風速', unit: 'm/s', value: '13.0' }],
    time: '2023-09-07T11:50:00+09:00',
    remark: '観測史上１位',
  });

  const forecastItems = body.forecast.timeSeries.flatMap((series: Json) => series.items);
  const tokyo = (type: string) =>
    forecastItems.find((item: Json) => item.code === '130010' && item.kinds[0].properties[0].type === type);
  assert.deepEqual(tokyo('雨の予想').codes, ['130011', '130012', '130013', '130014', '130015']);
  assert.deepEqual(tokyo('雨の予想').kinds[0].properties[0].precipitationParts, [
    {
      base: {
        precipitations: [
          { refId: '1', type: '１時間最大雨量', unit: 'mm', value: null, condition: '値なし' },
          { refId: '2', type: '１時間最大雨量', unit: 'mm', value: '50' },
        ],
      },
    },
  ]);
  const wind = tokyo('風の予想').kinds[0].properties[0];
  assert.deepEqual(wind.windDirectionPart.becomings, [
    {
      timeModifier: 'のち',
      directions: [
        { refId: '1', type: '風向', unit: '８方位漢字', value: null, condition: '値なし' },
        { refId: '2', type: '風向', unit: '８方位漢字', value: '南' },
      ],
    },
  ]);
  assert.deepEqual(wind.windSpeedPart.base.speeds[3], {
    refId: '2',
    type: '最大瞬間風速',
    unit: 'm/s',
    value: '30',
  });
  assert.deepEqual(tokyo('波の予想').kinds[0].properties[0].waveHeightPart, {
    base: {
      waveHeights: [
        { refId: '1', type: '波高', unit: 'm', value: null, condition: '値なし' },
        { refId: '2', type: '波高', unit: 'm', value: '1.5' },
      ],
    },
  });
});

/** The document of a fixture as the converter writes it, before the schema check. */
const written = (folder: 'official' | 'rest', file: string, type: string): Json =>
  weatherCommentary.convert({
    report: parseXmlElement(readFileSync(fixture(folder, file), 'utf8')),
    type,
    originalId: 'x',
  }) as Json;

test('VPFJ51 東京都 (October 2024 sample): empty values get condition 値なし, うねりを伴う is うねり, as in the June 2025 revision', () => {
  const october = written('rest', '85_01_01_241031_VPFJ51.xml', 'VPFJ51').body as Json;
  const forecastItems = october.forecast.timeSeries.flatMap((series: Json) => series.items);
  const item = (code: string, type: string) =>
    forecastItems.find((i: Json) => i.code === code && i.kinds[0].properties[0].type === type);
  // <Precipitation refID="1" type="１時間最大雨量" unit="mm"></Precipitation>: no condition attribute.
  assert.deepEqual(
    item('130010', '雨の予想').kinds[0].properties[0].precipitationParts[0].base.precipitations,
    [
      { refId: '1', type: '１時間最大雨量', unit: 'mm', value: null, condition: '値なし' },
      { refId: '2', type: '１時間最大雨量', unit: 'mm', value: '50' },
    ],
  );
  assert.deepEqual(item('130010', '波の予想').kinds[0].properties[0].waveHeightPart.base.waveHeights[0], {
    refId: '1',
    type: '波高',
    unit: 'm',
    value: null,
    condition: '値なし',
  });
  // condition="うねりを伴う": the field definitions name a wave height with swell うねり.
  assert.deepEqual(item('130020', '波の予想').kinds[0].properties[0].waveHeightPart.base.waveHeights, [
    { refId: '1', type: '波高', unit: 'm', value: '4', condition: 'うねり' },
    { refId: '2', type: '波高', unit: 'm', value: '5', condition: 'うねり' },
  ]);
  // JMA's June 2025 revision of the same telegram writes condition="値なし" and "うねり" itself.
  const june = written('official', '85_01_01_250630_VPFJ51.xml', 'VPFJ51').body as Json;
  assert.deepEqual(october.forecast, june.forecast);
});

test('VPFJ51 東京都 (October 2024 sample): the 情報タグ 雷 as written, admitted by an amendment for that tag alone', () => {
  const outcome = convertFixture(fixture('rest', '85_01_01_241031_VPFJ51.xml'), 'VPFJ51');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const document = outcome.document as Json;
  // <Condition>台風 大雨 雷 突風 強風 高波</Condition>
  assert.deepEqual(document.body.informationTags[0].tagNames, ['台風', '大雨', '雷', '突風', '強風', '高波']);
  const withTag = (tag: string) => {
    const copy = structuredClone(document);
    copy.body.informationTags[0].tagNames[2] = tag;
    return schemaViolation(outcome.schema, copy);
  };
  assert.equal(withTag('落雷'), null);
  assert.match(withTag('雷雨') ?? '', /tagNames\/2/);
});

test('VPFJ51 福井県 積雪の深さ: a single observed value has no refId (the XML writes refID="1" in a MeteorologicalInfo)', () => {
  const outcome = convertFixture(fixture('rest', '85(82)_02_04_250630_VPFJ51.xml'), 'VPFJ51');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const depth = (outcome.document.body as Json).observation.infos[1];
  assert.equal(depth.items[0].kinds[0].properties[0].texts[1].text, '積雪の深さ（アメダスによる速報値）');
  assert.deepEqual(depth.items[1], {
    code: '57176',
    codeType: 'アメダス地点番号',
    name: '大野市九頭竜',
    location: '福井県',
    kinds: [
      {
        properties: [
          {
            type: '雪の実況',
            snowDepthPart: {
              snowDepth: { type: '積雪深', unit: 'cm', value: '70' },
              time: '2024-01-24T06:00:00+09:00',
            },
          },
        ],
      },
    ],
  });
});

test('VMCJ55 府県気象解説情報（潮位）: 副振動 observed with its period, tide times as sequences, written from the XML', () => {
  const body = convert('89_01_01_250630_VMCJ55.xml', 'VMCJ55').body as Json;
  assert.deepEqual(body.informationTags[0].tagNames, ['副振動']);
  const [explanation, station, supplement] = body.observation.infos[0].items;
  assert.equal(explanation.kinds[0].properties[0].texts[0].type, '解説');
  assert.deepEqual(supplement, {
    kinds: [{ properties: [{ type: '副振動の実況', texts: [{ type: '補足', text: '' }] }] }],
  });
  assert.deepEqual(station, {
    code: '102101',
    codeType: '潮位観測地点番号',
    name: '苫小牧東（港湾局）',
    location: '北海道',
    kinds: [
      {
        properties: [
          {
            type: '副振動の実況',
            tidalLevelPart: {
              sentence: '１９日１２時２０分ごろ　約８０センチ　約６０分',
              tidalLevel: { type: '副振動の山から谷の高さ', unit: 'cm', value: '80', condition: '約' },
              tidalPeriod: { type: '副振動の周期', unit: '分', value: '60', condition: '約' },
              time: '2023-09-19T12:20:00+09:00',
            },
          },
        ],
      },
    ],
  });
  const tides = body.forecast.timeSeries[0].items[1].kinds[0].properties[0].tidalLevelPart;
  assert.deepEqual(tides.base.sequences[1], {
    refId: '1',
    sentence: '干潮時刻　１９日２３時４０分',
    tidalLevels: [{ type: '干潮潮位', unit: 'm', value: null, condition: '値なし' }],
    time: '2023-09-19T23:40:00+09:00',
  });
});

const VPZJ51 = fixture('official', '83_01_01_250630_VPZJ51.xml');

test('VPZJ51 線状降水帯予測 (半日前): the events by prefecture, a 気象現象の予想 as the field definitions list eventPart', () => {
  const document = weatherCommentary.convert({
    report: parseXmlElement(readFileSync(VPZJ51, 'utf8')),
    type: 'VPZJ51',
    originalId: 'x',
  }) as Json;
  // The sentence item keeps the XML's Type; the item carrying the EventPart is a 気象現象の予想.
  assert.equal(document.body.forecast.timeSeries[0].items[0].kinds[0].properties[0].type, '雨の予想');
  const kochi = document.body.forecast.timeSeries[0].items[1];
  assert.deepEqual(kochi, {
    codeType: '全国・地方予報区等',
    name: '（四国地方）高知県',
    codes: ['010800'],
    kinds: [
      {
        properties: [
          {
            type: '気象現象の予想',
            eventPart: {
              base: {
                locals: [
                  {
                    name: '高知県',
                    events: [
                      {
                        refId: '1',
                        type: '線状降水帯',
                        sentence: '１４日未明から１４日夜遅くにかけて',
                        eventName: '線状降水帯予想',
                        time: '2024-07-14T00:00:00+09:00',
                        duration: 'PT24H',
                      },
                    ],
                  },
                ],
              },
            },
          },
        ],
      },
    ],
  });
});

test('VPZJ51 線状降水帯予測: every sample validates against the published package JSON Schema, unamended', () => {
  const require = createRequire(import.meta.url);
  const validate = new Ajv({ strict: false }).compile(
    require('@dmdata/telegram-json-types/dist/jschema/weather-commentary_1.0.0.json') as object,
  );
  const samples = [
    fixture('official', '83_01_01_250630_VPZJ51.xml'),
    ...allRestXmlFixtures().filter((path) => path.endsWith('_VPZJ51.xml')),
  ];
  assert.equal(samples.length, 4);
  for (const sample of samples) {
    const document = weatherCommentary.convert({
      report: parseXmlElement(readFileSync(sample, 'utf8')),
      type: 'VPZJ51',
      originalId: 'x',
    });
    assert.ok(validate(document), `${sample}: ${JSON.stringify(validate.errors?.[0])}`);
  }
});

test('a cancellation (取消) converts with the body of the issue it withdraws, 取消 admitted by an amendment', () => {
  const xml = readFileSync(fixture('official', '84_01_01_241226_VPCJ51.xml'), 'utf8');
  const issue = convertTelegram(xml, 'VPCJ51', 'x');
  const cancellation = convertTelegram(
    xml.replace('<InfoType>発表</InfoType>', '<InfoType>取消</InfoType>'),
    'VPCJ51',
    'x',
  );
  assert.ok(
    issue?.ok && cancellation?.ok,
    cancellation && !cancellation.ok ? cancellation.reason : 'declined',
  );
  assert.equal(cancellation.document.infoType, '取消');
  assert.deepEqual(cancellation.document.body, issue.document.body);
});
