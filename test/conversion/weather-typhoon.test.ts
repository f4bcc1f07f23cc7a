import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('weather-typhoon');
fixtureSchemaTests(['VPTW60', 'VPTW61', 'VPTW62', 'VPTW63', 'VPTW64', 'VPTW65']);

const converted = (file: string, type: string) => {
  const outcome = convertFixture(fixture('official', file), type);
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document;
};

const everywhere = { type: '方向', unit: '８方位漢字', value: null, azimuth: null, condition: '全域' };

test('VPTW60 台風発生 (TC1730) with forecast circles, written from the XML', () => {
  const document = converted('10_03_01_171016_VPTW60.xml', 'VPTW60');
  assert.equal(document.type, '台風解析・予報情報（５日予報）（Ｈ３０）');
  assert.equal(document.targetDuration, 'PT120H');
  assert.equal(document.eventId, 'TC1730');
  assert.equal(document.headline, null);
  const body = document.body as { typhoon: unknown; forecasts: Record<string, unknown>[] };
  assert.deepEqual(body.typhoon, {
    tcNumber: 'TC201730',
    name: { text: 'LAN', kana: 'ラン', number: '201721' },
    remark: '台風発生',
  });
  assert.deepEqual(
    body.forecasts.map((f) => `${String(f.type)} ${String(f.elapsedTime)}`),
    ['実況 PT0H', '推定 PT1H', ...[3, 6, 9, 12, 15, 18, 21, 24, 48, 72, 96, 120].map((h) => `予報 PT${h}H`)],
  );
  assert.deepEqual(body.forecasts[0], {
    type: '実況',
    elapsedTime: 'PT0H',
    dateTime: '2017-10-16T09:00:00+09:00',
    classification: { category: 'TS', name: '台風', area: null, intensity: null },
    center: {
      location: 'ヤップ島の西約310km',
      coordinate: {
        latitude: { text: "10˚05'N", value: '10.0833' },
        longitude: { text: "135˚20'E", value: '135.3333' },
        condition: 'ほぼ正確',
      },
      direction: { type: '移動方向', unit: '１６方位漢字', value: '西北西', azimuth: '292.5' },
      speed: { type: '移動速度', unit: 'km/h', value: '15' },
      pressure: { type: '中心気圧', unit: 'hPa', value: '996' },
    },
    wind: {
      average: { type: '最大風速', unit: 'm/s', value: '20', condition: '中心付近' },
      instantaneous: { type: '最大瞬間風速', unit: 'm/s', value: '30' },
      area: {
        storm: [],
        strong: [{ direction: everywhere, radius: { type: '半径', unit: 'km', value: '220' } }],
      },
    },
  });
  // The 推定 position carries no accuracy condition in the XML.
  const estimated = body.forecasts[1] as { center: { coordinate: object; location: string } };
  assert.deepEqual(estimated.center.coordinate, {
    latitude: { text: "10˚20'N", value: '10.3333' },
    longitude: { text: "135˚20'E", value: '135.3333' },
  });
  assert.equal(estimated.center.location, 'ヤップ島の西北西約320km');
  // 予報 ３時間後 has no Location element, and a 暴風警戒域 of なし.
  const threeHours = body.forecasts[2] as {
    center: Record<string, unknown>;
    wind: unknown;
    classification: unknown;
  };
  assert.deepEqual(threeHours.classification, { category: 'TS', name: '台風', intensity: null });
  assert.equal(threeHours.center.location, null);
  assert.deepEqual(threeHours.center.probabilityCircle, {
    basePoint: {
      latitude: { text: "10˚20'N", value: '10.3333' },
      longitude: { text: "135˚05'E", value: '135.0833' },
    },
    axes: [{ direction: everywhere, radius: { type: '７０パーセント確率半径', unit: 'km', value: '10' } }],
  });
  assert.deepEqual(threeHours.wind, {
    average: { type: '最大風速', unit: 'm/s', value: '23', condition: '中心付近' },
    instantaneous: { type: '最大瞬間風速', unit: 'm/s', value: '35' },
    area: { stormWarning: [] },
  });
  assert.deepEqual(body.forecasts.at(-1), {
    type: '予報',
    elapsedTime: 'PT120H',
    dateTime: '2017-10-21T09:00:00+09:00',
    classification: { category: 'TY', name: '台風', intensity: '非常に強い' },
    center: {
      location: '南大東島近海',
      probabilityCircle: {
        basePoint: {
          latitude: { text: "21˚20'N", value: '21.3333' },
          longitude: { text: "131˚10'E", value: '131.1667' },
        },
        axes: [
          { direction: everywhere, radius: { type: '７０パーセント確率半径', unit: 'km', value: '520' } },
        ],
      },
      direction: { type: '移動方向', unit: '１６方位漢字', value: '北北東', azimuth: '22.5' },
      speed: { type: '移動速度', unit: 'km/h', value: '15' },
      pressure: { type: '中心気圧', unit: 'hPa', value: '925' },
    },
    wind: {
      average: { type: '最大風速', unit: 'm/s', value: '50', condition: '中心付近' },
      instantaneous: { type: '最大瞬間風速', unit: 'm/s', value: '70' },
      area: { stormWarning: [{ direction: everywhere, radius: { type: '半径', unit: 'km', value: '800' } }] },
    },
  });
});

test('VPTW61 台風発生の可能性が小さくなった: unnamed depression, analysis only, no wind', () => {
  const document = converted('10_05_05_200826_VPTW61.xml', 'VPTW61');
  assert.deepEqual(document.body, {
    typhoon: {
      tcNumber: 'TC202002',
      name: { text: null, kana: null, number: null },
      remark: '台風発生の可能性が小さくなった',
    },
    forecasts: [
      {
        type: '実況',
        elapsedTime: 'PT0H',
        dateTime: '2020-09-30T15:00:00+09:00',
        classification: { category: 'TD', name: '熱帯低気圧', area: null, intensity: null },
        center: {
          location: '小笠原近海',
          coordinate: {
            latitude: { text: "26˚00'N", value: '26.0000' },
            longitude: { text: "143˚00'E", value: '143.0000' },
          },
          direction: { type: '移動方向', unit: '１６方位漢字', value: '北西', azimuth: '315' },
          speed: { type: '移動速度', unit: 'km/h', value: '20' },
          pressure: { type: '中心気圧', unit: 'hPa', value: '1004' },
        },
      },
    ],
  });
});

test('VPTW61 with no moving direction (不定) and an almost stationary centre (ほとんど停滞)', () => {
  const xml = readFileSync(fixture('official', '10_05_05_200826_VPTW61.xml'), 'utf8')
    .replace(
      '<jmx_eb:Direction unit="１６方位漢字" type="移動方向">北西</jmx_eb:Direction>',
      '<jmx_eb:Direction condition="不定" unit="１６方位漢字" type="移動方向"/>',
    )
    .replace(
      '<jmx_eb:Speed description="毎時２０キロ" unit="km/h" type="移動速度">20</jmx_eb:Speed>',
      '<jmx_eb:Speed condition="ほとんど停滞" description="ほとんど停滞" unit="km/h" type="移動速度"/>',
    );
  const outcome = convertTelegram(xml, 'VPTW61', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const [analysis] = (outcome.document.body as { forecasts: { center: Record<string, unknown> }[] })
    .forecasts;
  assert.deepEqual(analysis?.center.direction, {
    type: '移動方向',
    unit: '１６方位漢字',
    value: null,
    azimuth: null,
    condition: '不定',
  });
  assert.deepEqual(analysis?.center.speed, {
    type: '移動速度',
    unit: 'km/h',
    value: null,
    condition: 'ほとんど停滞',
  });
});
