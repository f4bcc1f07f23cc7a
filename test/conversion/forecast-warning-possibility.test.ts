import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VPFD61', 'VPFD60', 'VPFW60']);

const TEXT = '香川県では、２３日までの期間内に、大雨、土砂災害警報を発表する可能性がある。';
const ranks = (type: string, values: (string | null)[]) =>
  values.map((value, i) =>
    value === null
      ? { refId: String(i + 1), type, value: null, condition: '値なし' }
      : { refId: String(i + 1), type, value },
  );
const none = Array<null>(9).fill(null);

test('VPFD61 香川県早期注意情報（明後日まで）, written from the XML', () => {
  const outcome = convertFixture(fixture('official', '90_01_01_241031_VPFD61.xml'), 'VPFD61');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.targetDuration, 'P2DT18H');
  const body = outcome.document.body as {
    region: { type: string; timeSeries: { timeDefines: object[]; items: Record<string, unknown>[] }[] };
  };
  assert.equal(body.region.type, '区域予報');
  assert.equal(body.region.timeSeries.length, 1);
  const [series] = body.region.timeSeries;
  assert.equal(series?.timeDefines.length, 9);
  assert.deepEqual(series?.timeDefines[0], {
    timeId: '1',
    dateTime: '2024-09-21T06:00:00+09:00',
    duration: 'PT6H',
    name: '２１日０６時から１２時',
  });
  assert.deepEqual(series?.timeDefines[8], {
    timeId: '9',
    dateTime: '2024-09-23T12:00:00+09:00',
    duration: 'PT12H',
    name: '２３日１２時から２４時',
  });
  const middle = [null, '中', '中', '中', '中', null, null, null, null];
  assert.deepEqual(series?.items, [
    {
      code: '370000',
      name: '香川県',
      kinds: [
        {
          properties: [
            {
              type: '大雨の警報級の可能性',
              possibilityRankOfWarnings: ranks('大雨の警報級の可能性', middle),
              texts: [{ text: TEXT }],
            },
          ],
        },
        {
          properties: [
            {
              type: '土砂災害の警報級の可能性',
              possibilityRankOfWarnings: ranks('土砂災害の警報級の可能性', middle),
              texts: [{ text: TEXT }],
            },
          ],
        },
        {
          properties: [
            {
              type: '雪の警報級の可能性',
              possibilityRankOfWarnings: ranks('雪の警報級の可能性', Array<string>(9).fill('なし')),
            },
          ],
        },
        {
          properties: [
            {
              type: '風（風雪）の警報級の可能性',
              possibilityRankOfWarnings: ranks('風（風雪）の警報級の可能性', none),
              texts: [{ text: TEXT }],
            },
          ],
        },
        {
          properties: [
            {
              type: '波の警報級の可能性',
              possibilityRankOfWarnings: ranks('波の警報級の可能性', none),
              texts: [{ text: TEXT }],
            },
          ],
        },
        {
          properties: [
            {
              type: '潮位の警報級の可能性',
              possibilityRankOfWarnings: ranks('潮位の警報級の可能性', none),
              texts: [{ text: TEXT }],
            },
          ],
        },
      ],
    },
  ]);
});

const rank = (type: string) => (value: string | null, i: number) =>
  value === null
    ? { refId: String(i + 1), type, value: null, condition: '値なし' }
    : { refId: String(i + 1), type, value };

test('VPFW60 (legacy 1.0.0): possibility ranks only, time definitions without names, written from the XML', () => {
  const outcome = convertFixture(fixture('official', '69_01_01_241031_VPFW60.xml'), 'VPFW60');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.deepEqual(outcome.document._schema, { type: 'forecast-warning-possibility', version: '1.0.0' });
  const days = ['16', '17', '18', '19'];
  assert.deepEqual(outcome.document.body, {
    timeSeries: [
      {
        timeDefines: days.map((d, i) => ({
          timeId: String(i + 1),
          dateTime: `2024-10-${d}T00:00:00+09:00`,
          duration: 'P1D',
        })),
        items: [
          {
            code: '370000',
            name: '香川県',
            kinds: [
              ['雨の警報級の可能性', ['高', null, '高', '中']],
              ['雪の警報級の可能性', ['なし', 'なし', 'なし', 'なし']],
              ['風（風雪）の警報級の可能性', [null, '中', '高', '中']],
              ['波の警報級の可能性', [null, '中', '高', '中']],
              ['潮位の警報級の可能性', ['高', null, null, null]],
            ].map(([type, values]) => ({
              type,
              possibilityRanks: (values as (string | null)[]).map(rank(type as string)),
            })),
          },
        ],
      },
    ],
  });
});

test('VPFD60 (legacy 1.0.0): 6-hourly details with local areas, the daily maxima, then the ranks', () => {
  const outcome = convertFixture(fixture('official', '68_02_01_241226_VPFD60.xml'), 'VPFD60');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const [sixHours, daily, ranks] = (outcome.document.body as { timeSeries: Record<string, unknown>[] })
    .timeSeries as {
    timeDefines: object[];
    items: { kinds: { type: string; details?: object[]; text?: string }[] }[];
  }[];
  assert.equal(sixHours?.timeDefines.length, 5);
  assert.deepEqual(sixHours?.timeDefines[4], {
    timeId: '5',
    dateTime: '2024-09-22T06:00:00+09:00',
    duration: 'PT18H',
    name: '２２日０６時から２４時',
  });
  assert.deepEqual(
    sixHours?.items[0]?.kinds.map((k) => k.type),
    ['１時間最大雨量', '３時間最大雨量', '６時間最大降雪量', '最大風速', '波'],
  );
  const noValue = (type: string, unit: string) => ({ type, unit, value: null, condition: '値なし' });
  assert.deepEqual(sixHours?.items[0]?.kinds[3]?.details?.[0], {
    refId: '1',
    text: '',
    base: {
      locals: [
        { name: '陸上', speed: noValue('最大風速', 'm/s') },
        { name: '海上', speed: noValue('最大風速', 'm/s') },
      ],
    },
  });
  assert.deepEqual(sixHours?.items[0]?.kinds[2]?.details?.[1], {
    refId: '2',
    text: '',
    base: { locals: [{ name: null, depth: noValue('６時間最大降雪量', 'cm') }] },
  });
  assert.deepEqual(daily, {
    timeDefines: [{ timeId: '1', dateTime: '2024-09-22T00:00:00+09:00', duration: 'P1D', name: '２２日' }],
    items: [
      {
        code: '370000',
        name: '香川県',
        kinds: [
          {
            type: '２４時間最大雨量',
            details: [
              {
                refId: '1',
                text: '',
                base: { locals: [{ name: null, precipitation: noValue('２４時間最大雨量', 'mm') }] },
              },
            ],
          },
          {
            type: '２４時間最大降雪量',
            details: [
              {
                refId: '1',
                text: '',
                base: { locals: [{ name: null, depth: noValue('２４時間最大降雪量', 'cm') }] },
              },
            ],
          },
        ],
      },
    ],
  });
  assert.deepEqual(ranks?.timeDefines[1], {
    timeId: '2',
    dateTime: '2024-09-21T18:00:00+09:00',
    duration: 'PT12H',
    name: '２１日夜のはじめ頃から２２日明け方',
  });
  assert.equal(
    ranks?.items[0]?.kinds[0]?.text,
    '香川県では、２２日までの期間内に、大雨警報を発表する可能性がある。',
  );
});

test('VPFD60 (legacy 1.0.0): a 24-hour maximum forecast as a range', () => {
  const xml = readFileSync(fixture('official', '68_02_01_241226_VPFD60.xml'), 'utf8')
    .replace(
      '<jmx_eb:Precipitation type="２４時間最大雨量（範囲の下端）" unit="mm" condition="値なし" description="値なし"/>',
      '<jmx_eb:Precipitation type="２４時間最大雨量（範囲の下端）" unit="mm" description="１００ミリ">100</jmx_eb:Precipitation>',
    )
    .replace(
      '<jmx_eb:Precipitation type="２４時間最大雨量（範囲の上端）" unit="mm" condition="値なし" description="値なし"/>',
      '<jmx_eb:Precipitation type="２４時間最大雨量（範囲の上端）" unit="mm" description="１５０ミリ">150</jmx_eb:Precipitation>',
    );
  const outcome = convertTelegram(xml, 'VPFD60', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const daily = (
    outcome.document.body as { timeSeries: { items: { kinds: { details: { base: unknown }[] }[] }[] }[] }
  ).timeSeries[1];
  assert.deepEqual(daily?.items[0]?.kinds[0]?.details[0]?.base, {
    locals: [
      {
        name: null,
        precipitation: {
          type: '２４時間最大雨量',
          range: { type: '範囲', unit: 'mm', from: '100', to: '150' },
        },
      },
    ],
  });
});
