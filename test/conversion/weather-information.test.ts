import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

const TYPES = [
  'VPZJ50',
  'VPCJ50',
  'VPFJ50',
  'VPSG50',
  'VPZS50',
  'VPTI50',
  'VPTI51',
  'VPTI52',
  'VPFT50',
  'VMCJ50',
  'VMCJ51',
  'VMCJ52',
  'VPFG50',
  'VPZK70',
];

goldPairTests('weather-information');
fixtureSchemaTests(TYPES);

const converted = (file: string, type: string) => {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

test('VPFG50 天気概況: target from TargetArea, no event, text as written', () => {
  const document = converted('23_01_01_160628_VPFG50.xml', 'VPFG50');
  assert.equal(document.type, '府県天気概況');
  assert.equal(document.title, '天気概況');
  assert.equal(document.eventId, null);
  assert.equal(document.serialNo, null);
  assert.equal(document.infoKind, '平文情報');
  const body = document.body as { notice: unknown; target: unknown; comment: string };
  assert.deepEqual(Object.keys(body), ['notice', 'target', 'comment']);
  assert.equal(body.notice, null);
  assert.deepEqual(body.target, { code: '230000', name: '愛知県' });
  assert.ok(
    body.comment.startsWith('　紀伊半島の南には低気圧があって、ほとんど停滞しています。また、日本\n海中部'),
  );
  assert.ok(body.comment.endsWith('雷を伴って激しく降る所があるでしょ\nう。'));
});

test('VPZK70 ２週間気温予報（概況）: empty headline is null, no target', () => {
  const document = converted('70_01_01_190327_VPZK70.xml', 'VPZK70');
  assert.equal(document.type, '全般季節予報（２週間気温予報）');
  assert.equal(document.headline, null);
  assert.equal(document.targetDateTime, '2018-01-23T00:00:00+09:00');
  const body = document.body as { notice: unknown; comment: string };
  assert.deepEqual(Object.keys(body), ['notice', 'comment']);
  assert.ok(body.comment.startsWith('　気温は、向こう１週間は全国的に平年より高く'));
});

const report = (infoType: string, body: string) => `<Report>
<Control><Title>府県気象情報</Title><DateTime>2024-07-01T00:00:00Z</DateTime><Status>通常</Status>
<EditorialOffice>福岡管区気象台</EditorialOffice><PublishingOffice>福岡管区気象台</PublishingOffice></Control>
<Head><Title>大雨に関する福岡県気象情報 第２号</Title><ReportDateTime>2024-07-01T09:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-07-01T09:00:00+09:00</TargetDateTime><EventID>JPFK240001</EventID><InfoType>${infoType}</InfoType>
<Serial>2</Serial><InfoKind>同一現象用平文情報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion>
<Headline><Text></Text></Headline></Head>
<Body>${body}</Body></Report>`;

test('VPFJ50 with a notice: notice and comment as written', () => {
  const outcome = convertTelegram(
    report(
      '発表',
      '<Notice>この情報は訓練です。</Notice><Comment><Text type="本文">　本文\n</Text></Comment>',
    ),
    'VPFJ50',
    'id',
  );
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.deepEqual(outcome.document.body, { notice: 'この情報は訓練です。', comment: '　本文\n' });
});

test('VPFJ50 cancellation: the reason in Comment/Text becomes the comment', () => {
  const outcome = convertTelegram(
    report('取消', '<Notice/><Comment><Text type="本文">先ほどの情報を取り消します。</Text></Comment>'),
    'VPFJ50',
    'id',
  );
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.infoType, '取消');
  assert.deepEqual(outcome.document.body, { notice: null, comment: '先ほどの情報を取り消します。' });
});
