import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EarthquakeNankai } from '@dmdata/telegram-json-types';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-nankai');
fixtureSchemaTests(['VYSE50', 'VYSE51', 'VYSE52', 'VYSE60']);

type PublicBody = EarthquakeNankai.v1_0_0.PublicBody;

const converted = (file: string, type: string) => {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

test('VYSE50 cancellation: the reason from Body/Text, the header as written', () => {
  const withdrawn =
    '１８日１９時３６分に発表した「南海トラフ地震臨時情報（調査中）」は誤りですので取り消します。';
  assert.deepEqual(converted('74_03_01_220318_VYSE50.xml', 'VYSE50'), {
    _originalId: 'TELEGRAM_ID',
    _schema: { type: 'earthquake-nankai', version: '1.0.0' },
    type: '南海トラフ地震臨時情報',
    title: '南海トラフ地震臨時情報（調査中）',
    status: '通常',
    infoType: '取消',
    editorialOffice: '気象庁本庁',
    publishingOffice: ['気象庁'],
    pressDateTime: '2022-03-18T10:38:10Z',
    reportDateTime: '2022-03-18T19:38:00+09:00',
    targetDateTime: '2022-03-18T19:38:00+09:00',
    eventId: '20220318193600',
    serialNo: null,
    infoKind: '南海トラフ地震に関連する情報',
    infoKindVersion: '1.1_0',
    headline: withdrawn,
    body: { text: withdrawn },
  });
});

test('VYSE50 kinds from InfoSerial: 調査中 (112), 巨大地震警戒 (120), 巨大地震注意 (130)', () => {
  const kind = (file: string) => (converted(file, 'VYSE50').body as PublicBody).earthquakeInfo?.kind;
  assert.deepEqual(kind('74_01_02_200512_VYSE50.xml'), { code: '112', name: '調査中' });
  assert.deepEqual(kind('74_01_04_200512_VYSE50.xml'), { code: '120', name: '巨大地震警戒' });
  assert.deepEqual(kind('74_01_05_200512_VYSE50.xml'), { code: '130', name: '巨大地震注意' });
});

test('VYSE50 巨大地震警戒: title, next advisory and text as written', () => {
  const document = converted('74_01_04_200512_VYSE50.xml', 'VYSE50');
  assert.equal(document.title, '南海トラフ地震臨時情報（巨大地震警戒）');
  assert.equal(document.eventId, '20200512162800');
  const body = document.body as PublicBody;
  assert.equal(
    body.nextAdvisory,
    '\n　今後は、「南海トラフ地震関連解説情報」で地殻活動の状況等を発表します。次回の情報発表は、●●時頃を予定しています。\n　なお、新たな変化を観測した場合には随時発表します。\n',
  );
  assert.ok(
    body.earthquakeInfo?.text.startsWith(
      '\n　本日（●日）●●時●●分頃に●●●●●●を震源とするマグニチュード●．●の地震が発生しました。',
    ),
  );
  assert.equal(body.text, undefined);
});

test('VYSE60: no kind and no next advisory; text and appendix as written', () => {
  const document = converted('80_01_01_240821_VYSE60.xml', 'VYSE60');
  assert.equal(document.type, '北海道・三陸沖後発地震注意情報');
  assert.equal(document.infoKind, '北海道・三陸沖後発地震注意情報');
  assert.equal(document.infoKindVersion, '1.3_1');
  assert.equal(document.serialNo, null);
  assert.ok(
    document.headline?.startsWith(
      '\n　本日（１８日）１４時０５分頃に三陸沖を震源とするモーメントマグニチュード',
    ),
  );
  const body = document.body as PublicBody;
  assert.deepEqual(Object.keys(body), ['earthquakeInfo']);
  const info = body.earthquakeInfo!;
  assert.deepEqual(Object.keys(info), ['text', 'appendix']);
  assert.ok(
    info.text.startsWith(
      '\n　本日（１８日）１４時０５分頃に、三陸沖を震源とするマグニチュード（Ｍ）７．８の地震が発生しました。\n\n',
    ),
  );
  assert.ok(info.text.endsWith('お知らせするものではありません。\n'));
  assert.ok(info.appendix?.startsWith('\n＊＊　（参考）　北海道・三陸沖後発地震注意情報について　＊＊\n\n'));
  assert.ok(info.appendix?.endsWith('最大クラスの後発地震が発生する可能性はさらに低くなります。\n'));
});

test('VYSE51 with an additional Body/Text keeps it as body.text', () => {
  const xml = `<Report>
<Control><Title>南海トラフ地震関連解説情報</Title><DateTime>2024-08-09T08:00:00Z</DateTime><Status>通常</Status>
<EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head><Title>南海トラフ地震関連解説情報</Title><ReportDateTime>2024-08-09T17:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-08-09T17:00:00+09:00</TargetDateTime><EventID>20240808164300</EventID><InfoType>発表</InfoType>
<Serial>2</Serial><InfoKind>南海トラフ地震に関連する情報</InfoKind><InfoKindVersion>1.1_0</InfoKindVersion>
<Headline><Text>解説情報</Text></Headline></Head>
<Body><EarthquakeInfo type="南海トラフ地震に関連する情報"><InfoKind>南海トラフ地震関連解説情報</InfoKind>
<Text>\u3000地震活動の状況</Text></EarthquakeInfo>
<NextAdvisory>\u3000次の情報は、●日に発表します。</NextAdvisory>
<Text>\u3000補足です。</Text></Body></Report>`;
  const outcome = convertTelegram(xml, 'VYSE51', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.serialNo, '2');
  assert.deepEqual(outcome.document.body, {
    earthquakeInfo: { text: '　地震活動の状況' },
    nextAdvisory: '　次の情報は、●日に発表します。',
    text: '　補足です。',
  });
});
