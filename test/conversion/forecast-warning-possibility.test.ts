import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../telegrams/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VPFD61']);

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
