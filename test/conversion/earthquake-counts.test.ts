import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-counts');
fixtureSchemaTests(['VXSE60']);

test('VXSE60 cancellation: the reason from Body/Text; the empty Serial becomes "" as the schema wants', () => {
  const outcome = convertFixture(fixture('official', '32-35_10_02_220510_VXSE60.xml'), 'VXSE60');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const { document } = outcome;
  assert.equal(document.infoType, '取消');
  assert.equal(document.eventId, '20220510173400');
  assert.equal(document.serialNo, '');
  assert.equal(document.pressDateTime, '2022-05-10T09:49:07Z');
  assert.equal(document.headline, '地震回数に関する情報を取り消します。');
  assert.deepEqual(document.body, { text: '先ほどの、地震回数に関する情報を取り消します。' });
});

const report = (body: string) => `<Report>
<Control><Title>地震回数に関する情報</Title><DateTime>2024-01-02T03:00:00Z</DateTime><Status>通常</Status>
<EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head><Title>地震回数に関する情報</Title><ReportDateTime>2024-01-02T12:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-01-02T12:00:00+09:00</TargetDateTime><EventID>20240101161000</EventID><InfoType>発表</InfoType>
<Serial>3</Serial><InfoKind>地震回数情報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion>
<Headline><Text>地震回数に関する情報をお知らせします。</Text></Headline></Head>
<Body>${body}</Body></Report>`;

test('VXSE60 counts not published (-1, empty, absent) are null; Text is kept; absent parts are left out', () => {
  const outcome = convertTelegram(
    report(`<EarthquakeCount>
<Item type="累積地震回数"><StartTime>2024-01-01T16:00:00+09:00</StartTime><EndTime>2024-01-02T12:00:00+09:00</EndTime>
<Number>-1</Number><FeltNumber>1214</FeltNumber></Item>
<Item type="１時間地震回数"><StartTime>2024-01-02T11:00:00+09:00</StartTime><EndTime>2024-01-02T12:00:00+09:00</EndTime>
<Number></Number><FeltNumber>4</FeltNumber></Item>
<Item type="地震回数"><StartTime>2024-01-01T16:00:00+09:00</StartTime><EndTime>2024-01-02T09:00:00+09:00</EndTime>
<Number>820</Number></Item>
</EarthquakeCount>
<Text>\u3000震度１以上を観測した地震の回数です。</Text>`),
    'VXSE60',
    'id',
  );
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.serialNo, '3');
  assert.deepEqual(outcome.document.body, {
    earthquakeCounts: [
      {
        type: '累積地震回数',
        targetTime: { start: '2024-01-01T16:00:00+09:00', end: '2024-01-02T12:00:00+09:00' },
        values: { all: null, felt: '1214' },
      },
      {
        type: '１時間地震回数',
        targetTime: { start: '2024-01-02T11:00:00+09:00', end: '2024-01-02T12:00:00+09:00' },
        values: { all: null, felt: '4' },
      },
      {
        type: '地震回数',
        targetTime: { start: '2024-01-01T16:00:00+09:00', end: '2024-01-02T09:00:00+09:00' },
        values: { all: '820', felt: null },
      },
    ],
    text: '　震度１以上を観測した地震の回数です。',
  });
});
