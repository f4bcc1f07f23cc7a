import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('volcano-information');
fixtureSchemaTests([
  'VFVO50',
  'VFVO51',
  'VFVO52',
  'VFVO53',
  'VFVO54',
  'VFVO55',
  'VFVO56',
  'VFSVii',
  'VZVO40',
]);

function converted(file: string, type: string) {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document as unknown as { serialNo: string | null; body: Record<string, unknown> };
}

test('VFVO50 草津白根山 level 2 → 1: alert level codes, municipalities and their prevention kinds', () => {
  const { serialNo, body } = converted('45_03_01_200731_VFVO50.xml', 'VFVO50');
  assert.equal(serialNo, null);
  assert.deepEqual(body.target, {
    code: '350',
    name: '草津白根山（白根山（湯釜付近））',
    coordinate: {
      latitude: { text: "36˚38.63'N", value: '36.6438' },
      longitude: { text: "138˚31.66'E", value: '138.5277' },
      height: { type: '高さ', unit: 'm', value: '2160' },
    },
    kind: {
      code: '11',
      name: 'レベル１（活火山であることに留意）',
      condition: '引下げ',
      lastKind: { code: '12', name: 'レベル２（火口周辺規制）' },
    },
  });
  const lifted = {
    code: '04',
    name: '噴火予報：警報解除',
    condition: '解除',
    lastKind: { code: '02', name: '火口周辺警報' },
  };
  assert.deepEqual(body.cities, [
    { code: '1042500', name: '群馬県嬬恋村', kinds: [lifted] },
    { code: '1042600', name: '群馬県草津町', kinds: [lifted] },
  ]);
  const preventionLifted = {
    code: '45',
    name: '活火山であることに留意',
    condition: '解除',
    lastKind: { code: '43', name: '火口周辺警報：入山規制等' },
  };
  assert.deepEqual(body.disasterPreventions, [
    { code: '1042500', name: '群馬県嬬恋村', kinds: [preventionLifted] },
    { code: '1042600', name: '群馬県草津町', kinds: [preventionLifted] },
    {
      code: '1042100',
      name: '群馬県中之条町',
      kinds: [
        {
          code: '45',
          name: '活火山であることに留意',
          condition: '継続',
          lastKind: { code: '45', name: '活火山であることに留意' },
        },
      ],
    },
  ]);
  const comments = body.comments as Record<string, string>;
  assert.deepEqual(Object.keys(comments), ['headline', 'activity', 'prevention', 'appendix']);
  assert.ok(comments.appendix!.startsWith('＊＊（参考：噴火警戒レベルの説明）＊＊\n【レベル５（避難）】'));
  assert.ok(
    comments.appendix!.endsWith('（注：避難や規制の対象地域は、地域の状況や火山活動状況により異なる）'),
  );
});

test('VFVO52 浅間山 with unknown plume heights: null values with 不明; no crater when CraterName is empty', () => {
  const { body } = converted('43_01_01_200522_VFVO52.xml', 'VFVO52');
  assert.deepEqual((body.target as Record<string, unknown>).kind, { code: '52', name: '噴火' });
  assert.equal('crater' in (body.target as object), false);
  assert.deepEqual(body.eruption, {
    eventDateTime: { value: '2020-05-22T14:45:00+09:00', validFormat: 'yyyy-mm-ddThh:mm' },
    colorPlume: {
      heightAboveCrater: { type: '火口上噴煙高度', unit: 'm', value: null, condition: '不明' },
      heightSeaLevel: { type: '海抜噴煙高度', unit: 'ft', value: null, condition: '不明' },
      direction: { type: '噴煙の流向', unit: '漢字', value: '流向不明' },
    },
  });
  assert.equal('comments' in body, false);
});

test('VFVO56 御嶽山 噴火速報: time with 頃, volcano without coordinate, one kind per municipality', () => {
  const { serialNo, body } = converted('67_01_01_140927_VFVO56.xml', 'VFVO56');
  assert.equal(serialNo, null);
  assert.deepEqual(body.target, { code: '312', name: '御嶽山', kind: { code: '52', name: '噴火' } });
  assert.deepEqual(body.eruption, {
    eventDateTime: { value: '2014-09-27T11:53:00+09:00', validFormat: 'yyyy-mm-ddThh:mm', dubious: '頃' },
  });
  const eruption = [{ code: '52', name: '噴火' }];
  assert.deepEqual(body.cities, [
    { code: '2042900', name: '長野県王滝村', kinds: eruption },
    { code: '2043200', name: '長野県木曽町', kinds: eruption },
    { code: '2120300', name: '岐阜県高山市', kinds: eruption },
    { code: '2122000', name: '岐阜県下呂市', kinds: eruption },
  ]);
  assert.deepEqual(body.comments, {
    headline: '＜御嶽山で噴火が発生＞',
    activity: ' 御嶽山で、平成２６年９月２７日１１時５３分頃、噴火が発生しました。',
  });
});

test('VFVO54 桜島 降灰予報（速報）: crater with its coordinate, one-hour forecast, direction 直上', () => {
  const { body } = converted('66_01_02_210514_VFVO54.xml', 'VFVO54');
  assert.deepEqual((body.target as Record<string, unknown>).crater, {
    name: '南岳山頂火口',
    coordinate: {
      latitude: { text: "31˚34.63'N", value: '31.5772' },
      longitude: { text: "130˚39.53'E", value: '130.6588' },
      height: { type: '高さ', unit: 'm', value: '1060' },
    },
  });
  const eruption = body.eruption as { eventDateTime: unknown; colorPlume: Record<string, unknown> };
  assert.deepEqual(eruption.colorPlume.heightAboveCrater, {
    type: '火口上噴煙高度',
    unit: 'm',
    value: '2200',
  });
  assert.deepEqual(eruption.colorPlume.direction, { type: '噴煙の流向', unit: '漢字', value: '直上' });
  const [forecast] = (body.ash as { forecasts: Record<string, unknown>[] }).forecasts;
  assert.equal(forecast!.type, '予報');
  assert.equal(forecast!.elapsedTime, 'PT1H');
  assert.equal(forecast!.startTime, '2021-05-14T12:31:00+09:00');
  assert.equal(forecast!.endTime, '2021-05-14T13:31:00+09:00');
  const [first] = forecast!.items as Record<string, unknown>[];
  assert.equal(first!.code, '72');
  assert.deepEqual(first!.size, { type: '降灰の厚さ', unit: 'mm', value: '0.1' });
  assert.deepEqual(first!.direction, { type: '降灰の方向', unit: '漢字', value: '西' });
  assert.deepEqual(first!.distance, { type: '降灰の到達距離', unit: 'km', value: '2' });
  assert.deepEqual(first!.cities, [{ code: '4620100', name: '鹿児島県鹿児島市' }]);
});

test('VZVO40 火山に関するお知らせ: the body is the text only', () => {
  const { body } = converted('42_02_01_071130_VZVO40.xml', 'VZVO40');
  assert.deepEqual(Object.keys(body), ['text']);
  assert.ok((body.text as string).startsWith('◆噴火警報及び噴火予報の発表について◆\n\n  気象庁では'));
});

test('VFVO52 without plume: direction 噴煙なし is null with that condition; white plume and comment kept', () => {
  const xml = `<Report><Control><Title>噴火に関する火山観測報</Title><DateTime>2024-01-01T00:00:00Z</DateTime>
<Status>通常</Status><EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
<Head><Title>噴火に関する火山観測報</Title><ReportDateTime>2024-01-01T09:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-01-01T08:58:00+09:00</TargetDateTime><EventID>20240101085800_506</EventID><InfoType>発表</InfoType>
<Serial>1</Serial><InfoKind>噴火に関する火山観測報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion>
<Headline><Text></Text></Headline></Head>
<Body><Notice>訓練です。</Notice><VolcanoInfo type="噴火に関する火山観測報"><Item>
<EventTime><EventDateTime significant="yyyy-mm-ddThh:mm">2024-01-01T08:58:00+09:00</EventDateTime></EventTime>
<Kind><Name>爆発</Name><Code>51</Code></Kind>
<Areas codeType="火山名"><Area><Name>桜島</Name><Code>506</Code>
<Coordinate>+3135.55+13039.40+1117/</Coordinate><CraterName>南岳山頂火口</CraterName></Area></Areas></Item></VolcanoInfo>
<VolcanoObservation><ColorPlume>
<PlumeHeightAboveCrater type="火口上噴煙高度" unit="m" condition="噴煙なし"/>
<PlumeDirection type="噴煙の流向" unit="漢字" condition="噴煙なし"/>
</ColorPlume><WhitePlume><PlumeHeightAboveCrater type="火口上噴煙高度" unit="m" condition="以上">1000</PlumeHeightAboveCrater>
<PlumeComment>白色の噴煙が雲に入る</PlumeComment></WhitePlume><Appendix>付記</Appendix></VolcanoObservation></Body></Report>`;
  const outcome = convertTelegram(xml, 'VFVO52', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as Record<string, unknown>;
  assert.equal(body.notice, '訓練です。');
  assert.deepEqual((body.target as Record<string, unknown>).crater, { name: '南岳山頂火口' });
  assert.deepEqual(body.eruption, {
    eventDateTime: { value: '2024-01-01T08:58:00+09:00', validFormat: 'yyyy-mm-ddThh:mm' },
    colorPlume: {
      heightAboveCrater: { type: '火口上噴煙高度', unit: 'm', value: null, condition: '噴煙なし' },
      direction: { type: '噴煙の流向', unit: '漢字', value: null, condition: '噴煙なし' },
    },
    whitePlume: {
      heightAboveCrater: { type: '火口上噴煙高度', unit: 'm', value: '1000', condition: '以上' },
      comment: '白色の噴煙が雲に入る',
    },
    appendix: '付記',
  });
});
