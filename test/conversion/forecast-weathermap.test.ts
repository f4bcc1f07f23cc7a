import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VZSA50', 'VZSA60', 'VZSF50', 'VZSF51', 'VZSF60', 'VZSF61']);

type Item = { type: string; kinds: Record<string, unknown>[] };

test('VZSA50 地上実況図: isobars, fronts and pressure centres, written from the XML', () => {
  const outcome = convertFixture(fixture('official', '58_01_01_130523_VZSA50.xml'), 'VZSA50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    weathermap: { items: Item[] } & Record<string, unknown>;
    severeWeather?: unknown;
  };
  assert.equal(body.severeWeather, undefined);
  assert.equal(body.weathermap.type, '実況');
  assert.equal(body.weathermap.elapsedTime, 'PT0H');
  assert.equal(body.weathermap.dateTime, '2013-04-06T21:00:00+09:00');
  const items = body.weathermap.items;
  assert.equal(items.length, 38);
  // Every isobar has its line; a closed isobar ends where it starts.
  const isobar998 = items[0]?.kinds[0] as { type: string; pressure: object; line: number[][] };
  assert.equal(isobar998.type, '等圧線');
  assert.deepEqual(isobar998.pressure, { type: '気圧', unit: 'hPa', value: '998' });
  assert.deepEqual(isobar998.line[0], [51.75, 177.48]);
  assert.deepEqual(isobar998.line.at(-1), [51.75, 177.48]);
  assert.equal(items.filter((i) => i.type === '等圧線').length, 30);
  const isobar1020 = items[2]?.kinds[0] as { line: number[][] };
  assert.deepEqual(isobar1020.line.at(-1), [44.76, 90.4]);
  const isobar1012 = items[3]?.kinds[0] as { pressure: { value: string }; line: number[][] };
  assert.equal(isobar1012.pressure.value, '1012');
  assert.deepEqual(isobar1012.line.slice(0, 2), [
    [56.34, 111.66],
    [56.34, 111.72],
  ]);
  assert.deepEqual(isobar1012.line.at(-1), [57.19, 114.72]);
  const lows = items.filter((i) => i.type === '低気圧');
  assert.deepEqual(lows[0], {
    type: '低気圧',
    kinds: [
      {
        type: '低気圧',
        coordinate: {
          latitude: { text: '47.15˚N', value: '47.1500' },
          longitude: { text: '109.50˚E', value: '109.5000' },
        },
        direction: { type: '移動方向', unit: '°', value: '90' },
        speeds: [
          { type: '移動速度', unit: 'km/h', value: '30' },
          { type: '移動速度', unit: 'knot', value: '15' },
        ],
        pressure: { type: '中心気圧', unit: 'hPa', value: '1000' },
      },
    ],
  });
  assert.deepEqual(lows[1]?.kinds[0]?.speeds, [
    { type: '移動速度', unit: 'km/h', value: null, condition: 'ゆっくり' },
    { type: '移動速度', unit: 'knot', value: null, condition: 'SLW' },
  ]);
  const high = items.find((i) => i.type === '高気圧')?.kinds[0];
  assert.deepEqual(high?.direction, { type: '移動方向', unit: '°', value: null, condition: '不定' });
  assert.deepEqual(high?.speeds, [
    { type: '移動速度', unit: 'km/h', value: null, condition: 'ほとんど停滞' },
    { type: '移動速度', unit: 'knot', value: null, condition: 'ALMOST STNR' },
  ]);
  const cold = items.find((i) => i.type === '寒冷前線')?.kinds[0] as { type: string; line: number[][] };
  assert.equal(cold.type, '寒冷前線');
  assert.deepEqual(cold.line[0], [21.33, 124.76]);
  assert.deepEqual(
    items.filter((i) => i.type.endsWith('前線')).map((i) => i.type),
    ['寒冷前線', '温暖前線'],
  );
});

const severeChart = `<Report><Control><Title>アジア太平洋海上悪天２４時間予想図</Title><DateTime>2024-09-20T00:00:00Z</DateTime>
<Status>通常</Status><EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head><Title>アジア太平洋海上悪天２４時間予想図</Title><ReportDateTime>2024-09-20T09:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-09-21T09:00:00+09:00</TargetDateTime><EventID/><InfoType>発表</InfoType><Serial/>
<InfoKind>天気図情報</InfoKind><InfoKindVersion>1.1_1</InfoKindVersion><Headline><Text/></Headline></Head>
<Body><MeteorologicalInfos type="天気図情報"><MeteorologicalInfo><DateTime type="２４時間予想">2024-09-21T09:00:00+09:00</DateTime>
<Item><Kind><Property><Type>台風</Type><CenterPart><Coordinate type="中心位置（度）">+25.5+130.2/</Coordinate>
<Direction type="移動方向" unit="度（真方位）">315</Direction><Speed type="移動速度" unit="km/h">20</Speed>
<Speed type="移動速度" unit="ノット">10</Speed><Pressure type="中心気圧" unit="hPa">960</Pressure></CenterPart></Property></Kind>
<Kind><Property><Type>風</Type><WindPart><WindSpeed type="最大風速" unit="m/s">40</WindSpeed><WindSpeed type="最大風速" unit="ノット">80</WindSpeed></WindPart></Property></Kind>
<Kind><Property><Type>呼称</Type><TyphoonNamePart><Name>JEBI</Name><NameKana>チェービー</NameKana><Number>2414</Number></TyphoonNamePart></Property></Kind>
<Kind><Property><Type>階級</Type><ClassPart><TyphoonClass type="熱帯擾乱種類">台風(TY)</TyphoonClass></ClassPart></Property></Kind></Item>
</MeteorologicalInfo></MeteorologicalInfos>
<MeteorologicalInfos type="悪天情報"><MeteorologicalInfo><DateTime type="２４時間予想">2024-09-21T09:00:00+09:00</DateTime>
<Item><Kind><Name>悪天情報（強風）</Name><Property><Type>悪天情報（強風）</Type><WindPart><WindDegree type="風向" unit="度（真方位）">270</WindDegree>
<WindSpeed type="風速" unit="ノット">35</WindSpeed></WindPart></Property></Kind><Area><Name>強風域</Name><Coordinate>+40.0+150.0/</Coordinate></Area></Item>
<Item><Kind><Name>悪天情報（霧）</Name></Kind><Area><Name>霧域</Name><Polygon>+42.0+145.0/+43.0+146.0/+42.0+147.0/+42.0+145.0/</Polygon></Area></Item>
<Item><Kind><Name>悪天情報（霧）</Name></Kind><Area codeType="全般海上海域名"><Name>三陸沖</Name><Code>1234</Code></Area></Item>
<Item><Kind><Name>悪天情報（海氷）</Name></Kind><Area><Name>海氷域</Name><Coordinate>+46.0+143.0/+46.5+144.0/</Coordinate></Area></Item>
</MeteorologicalInfo></MeteorologicalInfos></Body></Report>`;

test('VZSF60 海上悪天２４時間予想図: a typhoon with its four kinds, and the severe-weather areas', () => {
  const outcome = convertTelegram(severeChart, 'VZSF60', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    weathermap: { items: Item[] } & Record<string, unknown>;
    severeWeather: Record<string, unknown>;
  };
  assert.equal(body.weathermap.type, '予想');
  assert.equal(body.weathermap.elapsedTime, 'PT24H');
  assert.deepEqual(body.weathermap.items[0]?.kinds.slice(1), [
    {
      type: '風',
      speeds: [
        { type: '最大風速', unit: 'm/s', value: '40' },
        { type: '最大風速', unit: 'knot', value: '80' },
      ],
    },
    { type: '呼称', text: 'JEBI', kana: 'チェービー', number: '202414' },
    { type: '階級', category: 'TY', name: '台風' },
  ]);
  assert.deepEqual(body.severeWeather, {
    type: '予想',
    elapsedTime: 'PT24H',
    dateTime: '2024-09-21T09:00:00+09:00',
    items: [
      {
        type: '悪天情報（強風）',
        name: '強風域',
        coordinates: [[40, 150]],
        kinds: [
          {
            type: '悪天情報（強風）',
            direction: { type: '風向', unit: '°', value: '270' },
            speed: { type: '最大風速', unit: 'knot', value: '35' },
          },
        ],
      },
      {
        type: '悪天情報（霧）',
        name: '霧域',
        polygons: [
          [
            [42, 145],
            [43, 146],
            [42, 147],
            [42, 145],
          ],
        ],
      },
      { type: '悪天情報（霧）', name: '三陸沖', code: '1234' },
      {
        type: '悪天情報（海氷）',
        name: '海氷域',
        coordinates: [
          [46, 143],
          [46.5, 144],
        ],
      },
    ],
  });
});

test('VZSF60 (JMA sample): the severe-weather items as written, the sea-ice and ice-accretion areas named by their type', () => {
  const outcome = convertFixture(fixture('rest', '64_01_01_130523_VZSF60.xml'), 'VZSF60');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const severe = (outcome.document.body as { severeWeather: Record<string, unknown> & { items: Item[] } })
    .severeWeather;
  assert.equal(severe.type, '予想');
  assert.equal(severe.elapsedTime, 'PT24H');
  assert.equal(severe.dateTime, '2013-04-07T21:00:00+09:00');
  const [fog, fogSea, ice, accretion, wind] = severe.items as unknown as Record<string, unknown>[];
  assert.deepEqual(fog, {
    type: '悪天情報（霧）',
    name: '霧域',
    polygons: [
      [
        [41, 141],
        [46, 150],
        [49, 155],
        [40, 155],
        [38, 150],
        [38, 141],
        [41, 141],
      ],
    ],
  });
  assert.deepEqual(fogSea, { type: '悪天情報（霧）', name: 'オホーツク海', code: '9050' });
  // Area/Name is 海氷 here (海氷域 in the VZSF61 sample); the field definitions fix the name by the type.
  assert.equal(ice?.type, '悪天情報（海氷）');
  assert.equal(ice?.name, '海氷域');
  assert.deepEqual((ice?.coordinates as number[][]).slice(0, 2), [
    [60, 154.5],
    [60, 155],
  ]);
  assert.equal(accretion?.type, '悪天情報（船体着氷）');
  assert.equal(accretion?.name, '船体着氷域');
  assert.deepEqual(wind, {
    type: '悪天情報（強風）',
    name: '強風域',
    coordinates: [[50.2, 147.9]],
    kinds: [
      {
        type: '悪天情報（強風）',
        direction: { type: '風向', unit: '°', value: '105' },
        speed: { type: '最大風速', unit: 'knot', value: '32' },
      },
    ],
  });
});
