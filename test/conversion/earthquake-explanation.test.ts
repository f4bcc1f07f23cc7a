import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-explanation');
fixtureSchemaTests(['VXSE56']);

const converted = (file: string) => {
  const outcome = convertFixture(fixture('official', file), 'VXSE56');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

test('VXSE56 cancellation: the reason from Body/Text, the header as written', () => {
  assert.deepEqual(converted('32-35_09_02_220316_VXSE56.xml'), {
    _originalId: 'TELEGRAM_ID',
    _schema: { type: 'earthquake-explanation', version: '1.0.0' },
    type: '地震の活動状況等に関する情報',
    title: '地震の活動状況等に関する情報',
    status: '通常',
    infoType: '取消',
    editorialOffice: '気象庁本庁',
    publishingOffice: ['気象庁'],
    pressDateTime: '2022-03-16T04:46:04Z',
    reportDateTime: '2022-03-16T13:46:00+09:00',
    targetDateTime: '2022-03-16T13:46:00+09:00',
    eventId: '20220316133000',
    serialNo: null,
    infoKind: '地震の活動状況等に関する情報',
    infoKindVersion: '1.0_0',
    headline: '伊豆東部の地震活動の見通しに関する情報を発表します。 ',
    body: {
      text: '１６日１３時３０分に発表した「伊豆東部の地震活動の見通しに関する情報」は誤りですので取り消します。 ',
    },
  });
});

test('VXSE56 伊豆東部の地震活動の見通し: only the free text, line breaks kept', () => {
  const document = converted('32-35_09_01_191111_VXSE56.xml');
  assert.equal(document.eventId, '20191111170000');
  assert.equal(document.serialNo, null);
  assert.equal(document.headline, '伊豆東部の地震活動の見通しに関する情報を発表します。');
  const body = document.body as { text: string };
  assert.deepEqual(Object.keys(body), ['text']);
  assert.ok(
    body.text.startsWith(
      '伊豆東部の地震活動の見通しに関する情報（第１号）\n\n１．見出し\n　本日（１１日）昼から',
    ),
  );
  assert.ok(body.text.endsWith('\nには、随時お知らせします。'));
});

const report = (body: string) => `<Report>
<Control><Title>地震の活動状況等に関する情報</Title><DateTime>2016-04-16T01:00:00Z</DateTime><Status>通常</Status>
<EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head><Title>地震の活動状況等に関する情報</Title><ReportDateTime>2016-04-16T10:00:00+09:00</ReportDateTime>
<TargetDateTime>2016-04-16T10:00:00+09:00</TargetDateTime><EventID>20160416100000</EventID><InfoType>発表</InfoType>
<Serial></Serial><InfoKind>地震の活動状況等に関する情報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion>
<Headline><Text>地震の名称について</Text></Headline></Head>
<Body>${body}</Body></Report>`;

test('VXSE56 with a named earthquake and a free comment', () => {
  const outcome = convertTelegram(
    report(
      '<Naming english="The 2016 Kumamoto Earthquake">平成２８年（２０１６年）熊本地震</Naming>' +
        '<Text>　気象庁は、この地震を命名しました。\n</Text>' +
        '<Comments><FreeFormComment>　今後の情報に注意してください。</FreeFormComment></Comments>',
    ),
    'VXSE56',
    'id',
  );
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.deepEqual(outcome.document.body, {
    naming: { text: '平成２８年（２０１６年）熊本地震', en: 'The 2016 Kumamoto Earthquake' },
    text: '　気象庁は、この地震を命名しました。\n',
    comments: { free: '　今後の情報に注意してください。' },
  });
});

test('VXSE56 naming without an English name has no en', () => {
  const outcome = convertTelegram(
    report('<Naming>令和６年能登半島地震</Naming><Text>本文</Text>'),
    'VXSE56',
    'id',
  );
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.deepEqual(outcome.document.body, { naming: { text: '令和６年能登半島地震' }, text: '本文' });
});
