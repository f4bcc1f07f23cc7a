import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, differences, fixtureSchemaTests, goldPairTests, readFixture } from './gold.ts';

const NEWER_SCHEMA =
  'the official sample is schema 1.0.0; Namazu outputs 1.1.0, whose cancellation body is unchanged';

goldPairTests('earthquake-information', {
  'dmdata-json/sample-telegrams/earthquake-information/vxse53_rjtd_20080614090634.json': {
    '$._schema.version': NEWER_SCHEMA,
    '$.infoKindVersion':
      'PAIRS.md near-miss: the sample says 1.0_1 where every revision of its XML says 1.0_0 (made from a re-issued variant)',
  },
});

fixtureSchemaTests(['VXSE51', 'VXSE52', 'VXSE53', 'VXSE62', 'VZSE40']);

// Field-by-field checks of variants the gold pairs do not cover, written from the XML.

const REAL = 'jma-xml/real-operational';
const OFFICIAL = 'jma-xml/jma-official-samples';

interface Item {
  code: string;
  name: string;
  [key: string]: unknown;
}
interface Body {
  earthquake?: Record<string, unknown> & { hypocenter: Record<string, unknown> };
  intensity?: {
    maxInt: string;
    prefectures: Item[];
    regions: Item[];
    cities?: Item[];
    stations?: Item[];
  };
  text?: string;
  comments?: Record<string, unknown>;
}

function convert(relative: string, type: string) {
  const outcome = convertFixture(join(fixturesRoot, relative), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const document = outcome.document as unknown as Record<string, unknown> & { body: Body };
  return document;
}

const byCode = (items: Item[] | undefined, code: string) => items?.find((i) => i.code === code);

test('real VXSE51 (2021-02-17 23:06 福島県沖): prefectures and regions with their maxima, forecast comment', () => {
  const doc = convert(`${REAL}/20210217140808_0_VXSE51_010000.xml`, 'VXSE51');
  assert.deepEqual(doc._schema, { type: 'earthquake-information', version: '1.1.0' });
  assert.equal(doc.eventId, '20210217230627');
  assert.equal(doc.serialNo, null);
  assert.equal(doc.infoKind, '震度速報');
  assert.deepEqual(doc.body, {
    intensity: {
      maxInt: '3',
      prefectures: [
        { code: '04', name: '宮城県', maxInt: '3' },
        { code: '07', name: '福島県', maxInt: '3' },
      ],
      regions: [
        { code: '222', name: '宮城県中部', maxInt: '3' },
        { code: '251', name: '福島県浜通り', maxInt: '3' },
      ],
    },
    comments: { forecast: { text: '今後の情報に注意してください。', codes: ['0217'] } },
  });
});

test('real VXSE52 of the same event: hypocentre with datum, depth, magnitude, no intensity', () => {
  const doc = convert(`${REAL}/20210217140847_0_VXSE52_010000.xml`, 'VXSE52');
  assert.equal(doc.eventId, '20210217230627');
  assert.equal(doc.infoKind, '震源速報');
  assert.deepEqual(doc.body, {
    earthquake: {
      originTime: '2021-02-17T23:06:00+09:00',
      arrivalTime: '2021-02-17T23:06:00+09:00',
      hypocenter: {
        name: '福島県沖',
        code: '289',
        coordinate: {
          latitude: { text: '37.6˚N', value: '37.6000' },
          longitude: { text: '141.6˚E', value: '141.6000' },
          height: { type: '高さ', value: '-50000', unit: 'm' },
          geodeticSystem: '日本測地系',
        },
        depth: { type: '深さ', unit: 'km', value: '50' },
      },
      magnitude: { type: 'マグニチュード', unit: 'Mj', value: '4.5' },
    },
    comments: { forecast: { text: 'この地震による津波の心配はありません。', codes: ['0215'] } },
  });
});

test('real VXSE53 of the same event: every level flattened, strongest first then by code, both comments', () => {
  const doc = convert(`${REAL}/20210217140958_0_VXSE53_010000.xml`, 'VXSE53');
  assert.equal(doc.serialNo, '1');
  const { intensity, comments, earthquake } = doc.body;
  assert.equal(earthquake?.hypocenter.code, '289');
  assert.ok(intensity?.cities && intensity.stations);
  // 6 Pref, 12 Area, 100 City, 183 IntensityStation elements under Body/Intensity in the XML.
  assert.deepEqual(
    [
      intensity.prefectures.length,
      intensity.regions.length,
      intensity.cities.length,
      intensity.stations.length,
    ],
    [6, 12, 100, 183],
  );
  assert.equal(intensity.maxInt, '3');
  assert.deepEqual(intensity.cities.slice(0, 2), [
    { code: '0420200', name: '石巻市', maxInt: '3' },
    { code: '0754600', name: '双葉町', maxInt: '3' },
  ]);
  assert.deepEqual(intensity.stations[0], { code: '0420239', name: '石巻市桃生町＊', int: '3' });
  assert.deepEqual(byCode(intensity.stations, '0920100'), {
    code: '0920100',
    name: '宇都宮市明保野町',
    int: '1',
  });
  assert.deepEqual(intensity.prefectures.at(-1), { code: '09', name: '栃木県', maxInt: '1' });
  const order = ['3', '2', '1'];
  for (const list of [intensity.prefectures, intensity.regions, intensity.cities]) {
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      const rank = order.indexOf(String(a.maxInt)) - order.indexOf(String(b.maxInt));
      assert.ok(rank < 0 || (rank === 0 && a.code < b.code), `${a.code} before ${b.code}`);
    }
  }
  assert.deepEqual(comments, {
    forecast: { text: 'この地震による津波の心配はありません。', codes: ['0215'] },
    var: { text: '＊印は気象庁以外の震度観測点についての情報です。', codes: ['0262'] },
  });
});

test('VXSE53 serial 2 (official 2010-01-25): revise 上方修正 and 追加 at every level', () => {
  const { intensity } = convert(`${OFFICIAL}/32-35_04_06_240613_VXSE53.xml`, 'VXSE53').body;
  assert.deepEqual(byCode(intensity?.prefectures, '45'), {
    code: '45',
    name: '宮崎県',
    maxInt: '4',
    revise: '上方修正',
  });
  assert.deepEqual(byCode(intensity?.regions, '762'), {
    code: '762',
    name: '宮崎県南部平野部',
    maxInt: '4',
    revise: '上方修正',
  });
  assert.deepEqual(byCode(intensity?.cities, '4644100'), {
    code: '4644100',
    name: '加治木町',
    maxInt: '2',
    revise: '追加',
  });
  assert.deepEqual(byCode(intensity?.stations, '4520431'), {
    code: '4520431',
    name: '日南市南郷町南町＊',
    int: '4',
    revise: '追加',
  });
});

test('VXSE53 with 震度５弱以上未入電 (official 2008-06-14): !5- stations, city conditions', () => {
  const { intensity } = convert(`${OFFICIAL}/32-35_06_03_240613_VXSE53.xml`, 'VXSE53').body;
  assert.ok(intensity?.cities && intensity.stations);
  assert.equal(intensity.maxInt, '6+');
  // A city whose only station has not reported: no maxInt, the condition.
  assert.deepEqual(byCode(intensity.cities, '0338100'), {
    code: '0338100',
    name: '金ケ崎町',
    condition: '震度５弱以上未入電',
  });
  assert.deepEqual(byCode(intensity.stations, '0338130'), {
    code: '0338130',
    name: '金ケ崎町西根＊',
    int: '!5-',
    condition: '震度５弱以上未入電',
  });
  // The XML's 11 unreported stations come after every station with an intensity, by code.
  assert.deepEqual(
    intensity.stations.slice(-11).map((s) => s.code),
    [
      '0320931',
      '0321532',
      '0338130',
      '0421230',
      '0421300',
      '0421532',
      '0421533',
      '0444530',
      '0450530',
      '0546330',
      '0636531',
    ],
  );
  assert.equal(intensity.stations.length, 1127);
  assert.equal(intensity.cities.length, 620);
  assert.ok(intensity.cities.slice(-2).every((c) => c.maxInt === undefined));
});

test('real distant earthquake (2023-04-10 シベルチ火山): unknown depth and magnitude, detailed name, free text as written', () => {
  const doc = convert(`${REAL}/20230410231623_04156158_VXSE53.xml`, 'VXSE53');
  assert.equal(doc.title, '遠地地震に関する情報');
  assert.equal(doc.headline, '１０日２２時１０分ころ、海外で規模の大きな地震がありました。');
  const { earthquake, intensity, comments } = doc.body;
  assert.equal(intensity, undefined);
  assert.deepEqual(earthquake, {
    originTime: '2023-04-10T22:10:00+09:00',
    arrivalTime: '2023-04-10T22:10:00+09:00',
    hypocenter: {
      name: 'カムチャツカ半島付近',
      code: '941',
      coordinate: {
        latitude: { text: '56.7˚N', value: '56.7000' },
        longitude: { text: '161.4˚E', value: '161.4000' },
      },
      depth: { type: '深さ', unit: 'km', value: null, condition: '不明' },
      detailed: { code: '1218', name: 'ロシア、カムチャツカ半島東岸' },
    },
    magnitude: { type: 'マグニチュード', unit: 'Mj', value: null, condition: 'Ｍ不明' },
  });
  assert.deepEqual(comments?.forecast, {
    text: '日本への津波の有無については現在調査中です。',
    codes: ['0229'],
  });
  const free = String(comments?.free);
  assert.ok(free.startsWith('令和５年４月１０日２２時１０分頃（日本時間）にシベルチ火山で'));
  assert.ok(free.includes('お知らせします。\nこの噴火に伴って'));
  assert.ok(free.endsWith('想定した時刻です。'));
});

test('real distant earthquake serial 5: the forecast comment changes, the source of the hypocentre is absent', () => {
  const doc = convert(`${REAL}/20230411050043_01977411_VXSE53.xml`, 'VXSE53');
  assert.equal(doc.serialNo, '5');
  assert.deepEqual(doc.body.comments?.forecast, {
    text: 'この地震による日本への津波の影響はありません。',
    codes: ['0230'],
  });
  assert.equal(doc.body.earthquake?.hypocenter.source, undefined);
});

test('official distant earthquake with a foreign source: source ＰＴＷＣ, M, three forecast codes', () => {
  const { earthquake, comments } = convert(`${OFFICIAL}/32-39_05_01_100831_VXSE53.xml`, 'VXSE53').body;
  assert.equal(earthquake?.hypocenter.source, 'ＰＴＷＣ');
  assert.deepEqual(earthquake?.hypocenter.detailed, { code: '1135', name: 'チリ中部沿岸' });
  assert.deepEqual(earthquake?.magnitude, { type: 'マグニチュード', unit: 'M', value: '8.5' });
  assert.deepEqual((comments?.forecast as { codes: string[] }).codes, ['0221', '0228', '0229']);
  assert.equal(comments?.free, 'ＰＴＷＣでは２７日１５時４６分に津波情報を発表しています。');
});

test('cancellations of every type carry only the text', () => {
  const cases: [string, string, string][] = [
    [`${OFFICIAL}/32-35_10_01_220510_VXSE51.xml`, 'VXSE51', '先ほどの、震度速報を取り消します。'],
    [`${OFFICIAL}/32-35_06_02_100915_VXSE52.xml`, 'VXSE52', '先ほどの、震源に関する情報を取り消します。'],
    [`${OFFICIAL}/32-39_05_12_100915_VXSE53.xml`, 'VXSE53', '先ほどの、遠地地震に関する情報を取り消します。'],
    [
      `${OFFICIAL}/42_03_01_220402_VZSE40.xml`,
      'VZSE40',
      '先ほどの、地震・津波に関するお知らせを取り消します。',
    ],
  ];
  for (const [file, type, text] of cases) {
    const doc = convert(file, type);
    assert.equal(doc.infoType, '取消', file);
    assert.deepEqual(doc.body, { text }, file);
  }
  assert.equal(convert(`${OFFICIAL}/32-39_05_12_100915_VXSE53.xml`, 'VXSE53').serialNo, '8');
});

test('VZSE40 お知らせ: the text exactly as written', () => {
  const { body } = convert(`${OFFICIAL}/42_01_01_100514_VZSE40.xml`, 'VZSE40');
  assert.deepEqual(Object.keys(body), ['text']);
  assert.ok(body.text?.startsWith('　◆沖縄県の震度データ入電停止のお知らせ◆\n\n　沖縄県で'));
  assert.ok(body.text?.includes('　　　　　　　　　11月7日 08:00 から 20:00\n'));
  assert.ok(body.text?.endsWith('03-3211-7952\n\t\t'));
});

test('VXSE62 of the 2025 sample revision differs from the official conversion only by the dropped datum', () => {
  const doc = convert(`${OFFICIAL}/78_01_01_240613_VXSE62.xml`, 'VXSE62');
  const expected = JSON.parse(
    readFixture('dmdata-json/sample-telegrams/earthquake-information/vxse62_rjtd_20201121023330.json'),
  ) as unknown;
  assert.deepEqual(differences(doc, expected), ['$.body.earthquake.hypocenter.coordinate.geodeticSystem']);
});
