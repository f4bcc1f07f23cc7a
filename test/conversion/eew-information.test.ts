import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import type { ConvertedDocument } from '../../src/conversion/types.ts';
import { fixturesRoot } from '../support/fixtures.ts';
import {
  type AllowedDifferences,
  convertFixture,
  differences,
  fixtureSchemaTests,
  goldPairTests,
  readFixture,
} from './gold.ts';

const WARNING_2011 = 'dmdata-json/sample-telegrams/eew-information/vxse43_rjtd_20110311144810.json';
const OLD_LONG_PERIOD_NAMES =
  'the sample was rendered by an earlier build of the production converter that spelt the long-period fields ' +
  'forecastMaxLpgmInt / maxLpgmIntChange; the package (types and JSON Schema, which forbid the old names) and ' +
  'the live service (dmdata-json/real-websocket) use forecastMaxLgInt / maxLgIntChange; the values are ' +
  'checked equal under the new names below';

/** The 2011 warning sample forecasts a long-period class for every one of its 58 areas. */
const renamedLongPeriodFields = [
  '$.body.intensity',
  '$.body.intensity.appendix',
  ...Array.from({ length: 58 }, (_, i) => `$.body.intensity.regions[${i}]`),
].flatMap((at) => {
  const [lg, lpgm] = at.endsWith('appendix')
    ? ['maxLgIntChange', 'maxLpgmIntChange']
    : ['forecastMaxLgInt', 'forecastMaxLpgmInt'];
  return [`${at}.${lg}`, `${at}.${lpgm}`];
});

const allowed: AllowedDifferences = {
  [WARNING_2011]: Object.fromEntries(renamedLongPeriodFields.map((path) => [path, OLD_LONG_PERIOD_NAMES])),
};

goldPairTests('eew-information', allowed);
fixtureSchemaTests(['VXSE42', 'VXSE43', 'VXSE44', 'VXSE45', 'VXSE47']);

const official = (file: string) => join(fixturesRoot, 'jma-xml/jma-official-samples', file);

function convertOk(path: string, type: string): ConvertedDocument {
  const outcome = convertFixture(path, type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
}

function convertXml(xml: string, type: string, originalId = 'a'.repeat(96)): ConvertedDocument {
  const outcome = convertTelegram(xml, type, originalId);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
}

// Loose views of the converted body for field checks.
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const bodyOf = (document: ConvertedDocument) => document.body as Body;

test('the 2011 warning sample equals the official conversion once its long-period fields are renamed', () => {
  const document = convertOk(
    join(fixturesRoot, 'jma-xml/jma-official-samples-older/37_04_01_110311_VXSE43.xml'),
    'VXSE43',
  );
  const expected = JSON.parse(readFixture(WARNING_2011).replaceAll('Lpgm', 'Lg')) as unknown;
  assert.deepEqual(differences(document, expected), []);
});

test('the EEW sequence of event 20240417231454 converts with its serials and cancellations', () => {
  // file, type, serial, canceled, warning (read from the Headline warned areas and the area kinds)
  const sequence: [string, string, string, boolean, boolean?][] = [
    ['77_01_01_240613_VXSE45.xml', 'VXSE45', '1', false, false],
    ['77_01_02_240613_VXSE45.xml', 'VXSE45', '2', false, false],
    ['77_01_03_240613_VXSE45.xml', 'VXSE45', '3', false, false],
    ['77_01_04_240613_VXSE45.xml', 'VXSE45', '4', false, true],
    ['77_01_05_240613_VXSE45.xml', 'VXSE45', '5', false, true],
    ['77_01_10_240613_VXSE45.xml', 'VXSE45', '10', false, true],
    ['77_01_20_240613_VXSE45.xml', 'VXSE45', '20', false, true],
    ['77_01_30_240613_VXSE45.xml', 'VXSE45', '30', false, true],
    ['77_01_32_240613_VXSE45.xml', 'VXSE45', '32', false, true],
    ['77_01_33_240613_VXSE45.xml', 'VXSE45', '32', true],
    ['36_01_01_240613_VXSE44.xml', 'VXSE44', '1', false, false],
    ['36_01_02_240613_VXSE44.xml', 'VXSE44', '2', false, false],
    ['36_01_03_240613_VXSE44.xml', 'VXSE44', '3', false, false],
    ['36_01_10_240613_VXSE44.xml', 'VXSE44', '10', false, true],
    ['36_01_33_240613_VXSE44.xml', 'VXSE44', '32', true],
    ['37_01_01_240613_VXSE43.xml', 'VXSE43', '1', false, true],
    ['37_01_02_240613_VXSE43.xml', 'VXSE43', '2', false, true],
    ['37_01_03_240613_VXSE43.xml', 'VXSE43', '2', true],
  ];
  for (const [file, type, serial, canceled, warning] of sequence) {
    const document = convertOk(official(file), type);
    assert.equal(document.eventId, '20240417231454', file);
    assert.equal(document.serialNo, serial, file);
    assert.equal(document.infoType, canceled ? '取消' : '発表', file);
    assert.equal(bodyOf(document).isCanceled, canceled, file);
    assert.equal(bodyOf(document).isLastInfo, canceled, file);
    assert.equal(bodyOf(document).isWarning, warning, file);
  }
});

test('cancellations carry only the flags and the body text', () => {
  assert.deepEqual(bodyOf(convertOk(official('36_01_33_240613_VXSE44.xml'), 'VXSE44')), {
    isLastInfo: true,
    isCanceled: true,
    text: '先ほどの、緊急地震速報（予報）を取り消します。',
  });
  const warning = convertOk(official('37_01_03_240613_VXSE43.xml'), 'VXSE43');
  assert.equal(warning.headline, '緊急地震速報（警報）を取り消します。');
  assert.deepEqual(bodyOf(warning), {
    isLastInfo: true,
    isCanceled: true,
    text: '先ほどの、緊急地震速報（警報）を取り消します。',
  });
});

test('VXSE45 serial 10: warned areas, long-period forecasts, kinds and arrival', () => {
  const body = bodyOf(convertOk(official('77_01_10_240613_VXSE45.xml'), 'VXSE45'));
  const warned = { code: '31', name: '緊急地震速報（警報）' };
  assert.deepEqual(body.zones, [
    { code: '9943', name: '四国', kind: { ...warned, lastKind: warned } },
    { code: '9951', name: '九州', kind: { ...warned, lastKind: warned } },
    { code: '9942', name: '中国', kind: { ...warned, lastKind: warned } },
  ]);
  assert.deepEqual(
    body.prefectures.map((p: Body) => p.code),
    ['9380', '9390', '9440', '9350', '9340'],
  );
  assert.equal(body.regions.length, 9);
  assert.deepEqual(body.intensity.forecastMaxInt, { from: '5+', to: '5+' });
  assert.deepEqual(body.intensity.forecastMaxLgInt, { from: '2', to: '2' });
  assert.deepEqual(body.intensity.appendix, {
    maxIntChange: '0',
    maxLgIntChange: '0',
    maxIntChangeReason: '0',
  });
  assert.equal(body.intensity.regions.length, 36);
  assert.deepEqual(body.intensity.regions[3], {
    code: '621',
    name: '愛媛県中予',
    forecastMaxInt: { from: '5-', to: '5-' },
    forecastMaxLgInt: { from: '0', to: '0' },
    isPlum: false,
    isWarning: true,
    kind: { name: '緊急地震速報（警報）', code: '10' },
    arrivalTime: '2024-04-17T23:15:08+09:00',
  });
  assert.deepEqual(body.intensity.regions[8], {
    code: '631',
    name: '高知県中部',
    forecastMaxInt: { from: '4', to: '4' },
    forecastMaxLgInt: { from: '1', to: '1' },
    isPlum: false,
    isWarning: false,
    kind: { name: '緊急地震速報（予報）', code: '00' },
    arrivalTime: '2024-04-17T23:15:12+09:00',
  });
  assert.deepEqual(body.comments, { warning: { text: '強い揺れに警戒してください。', codes: ['0201'] } });
  assert.equal(body.earthquake.hypocenter.coordinate.geodeticSystem, undefined);
});

test('VXSE44 first reports: a forecast without areas or appendix, then an area already reached', () => {
  const first = bodyOf(convertOk(official('36_01_01_240613_VXSE44.xml'), 'VXSE44'));
  assert.equal(first.isWarning, false);
  assert.equal('zones' in first, false);
  assert.equal('comments' in first, false);
  assert.deepEqual(first.intensity, { forecastMaxInt: { from: '3', to: '3' }, regions: [] });
  assert.deepEqual(first.earthquake.hypocenter.accuracy, {
    epicenters: ['4', '4'],
    depth: '4',
    magnitudeCalculation: '2',
    numberOfMagnitudeCalculation: '0',
  });
  const third = bodyOf(convertOk(official('36_01_03_240613_VXSE44.xml'), 'VXSE44'));
  assert.deepEqual(third.intensity, {
    forecastMaxInt: { from: '4', to: '4' },
    appendix: { maxIntChange: '0', maxIntChangeReason: '0' },
    regions: [
      {
        code: '622',
        name: '愛媛県南予',
        forecastMaxInt: { from: '4', to: '4' },
        isPlum: false,
        isWarning: false,
        kind: { name: '緊急地震速報（予報）', code: '01' },
        condition: '既に主要動到達と推測',
      },
    ],
  });
});

test('real VXSE43 of 2024-01-16: newly warned areas, Japanese datum, long-period change', () => {
  const document = convertOk(
    join(fixturesRoot, 'jma-xml/real-operational/20240116184225_02245216_VXSE43.xml'),
    'VXSE43',
  );
  assert.equal(document.editorialOffice, '大阪管区気象台');
  const body = bodyOf(document);
  assert.equal(body.isLastInfo, false);
  assert.equal(body.isWarning, true);
  const newlyWarned = { code: '31', name: '緊急地震速報（警報）', lastKind: { code: '00', name: 'なし' } };
  assert.deepEqual(body.zones, [{ code: '9934', name: '北陸', kind: newlyWarned }]);
  assert.deepEqual(body.regions, [
    { code: '390', name: '石川県能登', kind: newlyWarned },
    { code: '391', name: '石川県加賀', kind: newlyWarned },
  ]);
  assert.deepEqual(body.earthquake.hypocenter.coordinate, {
    latitude: { text: '37.3˚N', value: '37.3000' },
    longitude: { text: '136.6˚E', value: '136.6000' },
    height: { type: '高さ', unit: 'm', value: '-10000' },
    geodeticSystem: '日本測地系',
  });
  assert.deepEqual(body.earthquake.hypocenter.reduce, { code: '9777', name: '能登半島沖' });
  assert.equal(body.earthquake.hypocenter.landOrSea, '海域');
  assert.deepEqual(body.earthquake.magnitude, { type: 'マグニチュード', value: '5.7', unit: 'Mj' });
  assert.deepEqual(body.intensity.appendix, {
    maxIntChange: '0',
    maxLgIntChange: '1',
    maxIntChangeReason: '0',
  });
  assert.deepEqual(body.intensity.regions[1].forecastMaxInt, { from: '3', to: '4' });
  assert.equal(body.intensity.regions[1].arrivalTime, '2024-01-16T18:42:31+09:00');
});

/** A JMA EEW telegram in the layout of the real ones (Control, Head, Body). */
function eewXml(parts: {
  title: string;
  dateTime: string;
  reportDateTime: string;
  eventId: string;
  serial: string;
  infoType?: string;
  editorialOffice?: string;
  headline?: string;
  body: string;
}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Report xmlns="http://xml.kishou.go.jp/jmaxml1/" xmlns:jmx="http://xml.kishou.go.jp/jmaxml1/">
<Control><Title>${parts.title}</Title><DateTime>${parts.dateTime}</DateTime><Status>通常</Status><EditorialOffice>${parts.editorialOffice ?? '気象庁本庁'}</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head xmlns="http://xml.kishou.go.jp/jmaxml1/informationBasis1/"><Title>${parts.title}</Title><ReportDateTime>${parts.reportDateTime}</ReportDateTime><TargetDateTime>${parts.reportDateTime}</TargetDateTime><EventID>${parts.eventId}</EventID><InfoType>${parts.infoType ?? '発表'}</InfoType><Serial>${parts.serial}</Serial><InfoKind>緊急地震速報</InfoKind><InfoKindVersion>1.2_0</InfoKindVersion><Headline>${parts.headline ?? '<Text></Text>'}</Headline></Head>
<Body xmlns="http://xml.kishou.go.jp/jmaxml1/body/seismology1/" xmlns:jmx_eb="http://xml.kishou.go.jp/jmaxml1/elementBasis1/">${parts.body}</Body>
</Report>`;
}

const accuracy = (epicenter: string, rank2: string, depth: string, magnitude: string, count: string) =>
  `<Accuracy><Epicenter rank="${epicenter}" rank2="${rank2}">NaN</Epicenter><Depth rank="${depth}">NaN</Depth><MagnitudeCalculation rank="${magnitude}">NaN</MagnitudeCalculation><NumberOfMagnitudeCalculation>${count}</NumberOfMagnitudeCalculation></Accuracy>`;

const warnedItem = (type: string, codeType: string, name: string, code: string) =>
  `<Information type="${type}"><Item><Kind><Name>緊急地震速報（警報）</Name><Code>31</Code></Kind><LastKind><Name>緊急地震速報（警報）</Name><Code>31</Code></LastKind><Areas codeType="${codeType}"><Area><Name>${name}</Name><Code>${code}</Code></Area></Areas></Item></Information>`;

const forecastArea = (
  pref: [string, string],
  area: [string, string],
  kind: [string, string],
  from: string,
  time: string,
) =>
  `<Pref><Name>${pref[0]}</Name><Code>${pref[1]}</Code><Area><Name>${area[0]}</Name><Code>${area[1]}</Code><Category><Kind><Name>${kind[0]}</Name><Code>${kind[1]}</Code></Kind></Category><ForecastInt><From>${from}</From><To>over</To></ForecastInt><ArrivalTime>${time}</ArrivalTime></Area></Pref>`;

/** The decoded eew-information document of a real conversion (dmdata-json/real-*). */
function realConversion(file: string): ConvertedDocument & { _originalId: string } {
  const json = JSON.parse(readFixture(file)) as { body: string } & Record<string, unknown>;
  if (file.startsWith('dmdata-json/real-websocket/')) {
    return JSON.parse(gunzipSync(Buffer.from(json.body, 'base64')).toString('utf8')) as never;
  }
  return json as never;
}

test('a PLUM-only warning with an assumed hypocentre (仮定震源要素) equals the real conversion', () => {
  const expected = realConversion('dmdata-json/real-telegrams/vxse45-temporalhypocenter.json');
  const forecastKind: [string, string] = ['緊急地震速報（予報）', '09'];
  const xml = eewXml({
    title: '緊急地震速報（地震動予報）',
    dateTime: '2023-05-05T12:58:44Z',
    reportDateTime: '2023-05-05T21:58:44+09:00',
    eventId: '20230505215718',
    serial: '6',
    headline:
      '<Text>地震発生　北陸で強い揺れ</Text>' +
      warnedItem('緊急地震速報（地方予報区）', '緊急地震速報／地方予報区', '北陸', '9934') +
      warnedItem('緊急地震速報（府県予報区）', '緊急地震速報／府県予報区', '石川', '9170') +
      warnedItem('緊急地震速報（細分区域）', '地震情報／細分区域', '石川県能登', '390'),
    body:
      '<Earthquake><OriginTime>2023-05-05T21:58:08+09:00</OriginTime><Condition>仮定震源要素</Condition><ArrivalTime>2023-05-05T21:57:18+09:00</ArrivalTime>' +
      '<Hypocenter><Area><Name>富山湾</Name><Code type="震央地名">497</Code><jmx_eb:Coordinate description="北緯３７．４度　東経１３７．４度　深さ　１０ｋｍ" datum="日本測地系">+37.4+137.4-10000/</jmx_eb:Coordinate><ReduceName>富山湾</ReduceName><ReduceCode type="短縮用震央地名">9778</ReduceCode></Area>' +
      accuracy('1', '1', '1', '8', '1') +
      '</Hypocenter><jmx_eb:Magnitude type="Mj" description="Ｍ１．０">1.0</jmx_eb:Magnitude></Earthquake>' +
      '<Intensity><Forecast><ForecastInt><From>6-</From><To>over</To></ForecastInt><Appendix><MaxIntChange>0</MaxIntChange><MaxIntChangeReason>0</MaxIntChangeReason></Appendix>' +
      forecastArea(
        ['石川', '9170'],
        ['石川県能登', '390'],
        ['緊急地震速報（警報）', '19'],
        '6-',
        '2023-05-05T21:58:11+09:00',
      ) +
      forecastArea(['新潟', '9150'], ['新潟県上越', '370'], forecastKind, '4', '2023-05-05T21:58:37+09:00') +
      forecastArea(['新潟', '9150'], ['新潟県佐渡', '375'], forecastKind, '4', '2023-05-05T21:58:38+09:00') +
      forecastArea(['石川', '9170'], ['石川県加賀', '391'], forecastKind, '4', '2023-05-05T21:58:44+09:00') +
      '</Forecast></Intensity><Comments><WarningComment codeType="固定付加文"><Text>強い揺れに警戒してください。</Text><Code>0201</Code></WarningComment></Comments>',
  });
  assert.deepEqual(differences(convertXml(xml, 'VXSE45', expected._originalId), expected), []);
});

test('a 100 gal detection without origin time or magnitude equals the real conversion', () => {
  const expected = realConversion('dmdata-json/real-telegrams/vxse45-thresholdexceeded.json');
  const xml = eewXml({
    title: '緊急地震速報（地震動予報）',
    dateTime: '2023-05-13T07:10:32Z',
    reportDateTime: '2023-05-13T16:10:32+09:00',
    eventId: '20230513161031',
    serial: '1',
    editorialOffice: '大阪管区気象台',
    body:
      '<Earthquake><ArrivalTime>2023-05-13T16:10:31+09:00</ArrivalTime><Hypocenter><Area><Name>九州地方</Name><Code type="震央地名">020</Code><jmx_eb:Coordinate description="北緯２９．８度　東経１２９．９度　深さ　１０ｋｍ" datum="日本測地系">+29.8+129.9-10000/</jmx_eb:Coordinate><ReduceName>薩南諸島近海</ReduceName><ReduceCode type="短縮用震央地名">9831</ReduceCode></Area>' +
      accuracy('1', '1', '1', '8', '1') +
      '</Hypocenter><jmx_eb:Magnitude type="Mj" condition="不明" description="Ｍ不明">NaN</jmx_eb:Magnitude></Earthquake>' +
      '<Intensity><Forecast><ForecastInt><From>5-</From><To>over</To></ForecastInt></Forecast></Intensity>' +
      '<Text>１３日１６時１０分３１秒頃\n鹿児島県鹿児島十島村付近　最大震度５弱程度以上と推定</Text>',
  });
  assert.deepEqual(differences(convertXml(xml, 'VXSE45', expected._originalId), expected), []);
});

test('a final report (NextAdvisory) without a datum equals the real WebSocket conversion', () => {
  const expected = realConversion('dmdata-json/real-websocket/socket-vxse45-20260311184809-3.json');
  const xml = eewXml({
    title: '緊急地震速報（地震動予報）',
    dateTime: '2026-03-11T09:48:56Z',
    reportDateTime: '2026-03-11T18:48:56+09:00',
    eventId: '20260311184809',
    serial: '3',
    editorialOffice: '大阪管区気象台',
    body:
      '<Earthquake><OriginTime>2026-03-11T18:47:51+09:00</OriginTime><ArrivalTime>2026-03-11T18:48:09+09:00</ArrivalTime><Hypocenter><Area><Name>青森県東方沖</Name><Code type="震央地名">285</Code><jmx_eb:Coordinate description="北緯４１．５度　東経１４１．７度　深さ１３０ｋｍ">+41.5+141.7-130000/</jmx_eb:Coordinate><ReduceName>青森東方沖</ReduceName><ReduceCode type="短縮用震央地名">9735</ReduceCode><LandOrSea>海域</LandOrSea></Area>' +
      accuracy('4', '9', '4', '2', '0') +
      '</Hypocenter><jmx_eb:Magnitude type="Mj" description="Ｍ３．７">3.7</jmx_eb:Magnitude></Earthquake>' +
      '<Intensity><Forecast><ForecastInt><From>2</From><To>2</To></ForecastInt><ForecastLgInt><From>0</From><To>0</To></ForecastLgInt><Appendix><MaxIntChange>0</MaxIntChange><MaxLgIntChange>0</MaxLgIntChange><MaxIntChangeReason>0</MaxIntChangeReason></Appendix></Forecast></Intensity>' +
      '<NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</NextAdvisory>',
  });
  assert.deepEqual(differences(convertXml(xml, 'VXSE45', expected._originalId), expected), []);
});

test('a real cancellation with an empty headline equals the real conversion', () => {
  const expected = realConversion('dmdata-json/real-telegrams/vxse45-cancel.json');
  const xml = eewXml({
    title: '緊急地震速報（地震動予報）',
    dateTime: '2023-09-05T21:37:52Z',
    reportDateTime: '2023-09-06T06:37:52+09:00',
    eventId: '20230906063640',
    serial: '2',
    infoType: '取消',
    editorialOffice: '大阪管区気象台',
    body: '<Text>先ほどの、緊急地震速報（地震動予報）を取り消します。</Text>',
  });
  assert.deepEqual(differences(convertXml(xml, 'VXSE45', expected._originalId), expected), []);
});

const realtimeBody =
  '<Earthquake><OriginTime>2024-01-01T16:10:09+09:00</OriginTime><ArrivalTime>2024-01-01T16:10:14+09:00</ArrivalTime><Hypocenter><Area><Name>石川県能登地方</Name><Code type="震央地名">390</Code><jmx_eb:Coordinate description="北緯３７．６度　東経１３７．２度　ごく浅い">+37.6+137.2+0/</jmx_eb:Coordinate><ReduceName>石川県能登</ReduceName><ReduceCode type="短縮用震央地名">9390</ReduceCode><LandOrSea>内陸</LandOrSea></Area>' +
  accuracy('4', '4', '4', '4', '5') +
  '</Hypocenter><jmx_eb:Magnitude type="Mj" condition="不明" description="M不明">NaN</jmx_eb:Magnitude></Earthquake>' +
  '<Intensity><Observation><CodeDefine><Type xpath="Pref/Code">地震情報／都道府県等</Type></CodeDefine>' +
  '<Pref><Name>石川県</Name><Code>17</Code><Area><Name>石川県能登</Name><Code>390</Code>' +
  '<IntensityStation><Name>珠洲市正院町</Name><Code>1720100</Code><Int>6+</Int><K>6.1</K></IntensityStation>' +
  '<IntensityStation><Name>輪島市門前町</Name><Code>1720400</Code><Int>5-</Int><K>4.7</K></IntensityStation>' +
  '</Area></Pref></Observation></Intensity>';

test('VXSE47 real-time intensity: stations, no warning flag, unknown magnitude, very shallow depth', () => {
  const document = convertXml(
    eewXml({
      title: 'リアルタイム震度',
      dateTime: '2024-01-01T07:10:20Z',
      reportDateTime: '2024-01-01T16:10:20+09:00',
      eventId: '20240101161010',
      serial: '4',
      body: realtimeBody,
    }),
    'VXSE47',
  );
  assert.equal(document.type, 'リアルタイム震度');
  const body = bodyOf(document);
  assert.deepEqual(Object.keys(body), ['isLastInfo', 'isCanceled', 'earthquake', 'intensity']);
  assert.equal(body.isLastInfo, false);
  assert.deepEqual(body.intensity, {
    stations: [
      { code: '1720100', name: '珠洲市正院町', int: '6+', k: '6.1' },
      { code: '1720400', name: '輪島市門前町', int: '5-', k: '4.7' },
    ],
  });
  assert.deepEqual(body.earthquake.magnitude, {
    type: 'マグニチュード',
    value: null,
    unit: 'Mj',
    condition: 'Ｍ不明',
  });
  assert.deepEqual(body.earthquake.hypocenter.depth, {
    type: '深さ',
    unit: 'km',
    value: '0',
    condition: 'ごく浅い',
  });
});

test('VXSE43 never announces a final report; VXSE44 warned areas set the warning flag', () => {
  const xml = readFixture('jma-xml/real-operational/20240116184225_02245216_VXSE43.xml').replace(
    '</Comments>',
    '</Comments><NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</NextAdvisory>',
  );
  assert.equal(bodyOf(convertXml(xml, 'VXSE43')).isLastInfo, false);
  const warnedForecast = bodyOf(convertOk(official('36_01_10_240613_VXSE44.xml'), 'VXSE44'));
  assert.equal(warnedForecast.isWarning, true);
  assert.equal('zones' in warnedForecast, false);
});
