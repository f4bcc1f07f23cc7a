import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('weather-early');
fixtureSchemaTests(['VPAW51']);

test('VPAW51 東北地方 高温と大雪: period with its precision, a ℃ and a % threshold, the main text and its zone', () => {
  const outcome = convertFixture(fixture('official', '72_07_01_190327_VPAW51.xml'), 'VPAW51');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const { document } = outcome;
  assert.equal(document.targetDateTimeDubious, '頃');
  assert.equal(document.targetDuration, 'P5D');
  assert.equal(document.validDateTime, '2017-12-09T14:30:00+09:00');
  const body = document.body as Record<string, unknown> & { mainTexts: { text: string; zones: unknown }[] };
  assert.equal('notice' in body, false, 'an empty Notice is left out');
  assert.deepEqual(body.target, { code: '010200', name: '東北地方' });
  assert.deepEqual(body.targetTime, {
    dateTime: { value: '2017-12-10T00:00:00+09:00', validFormat: 'yyyy-mm-dd', precision: 'P3D' },
    duration: 'P5D',
  });
  assert.deepEqual(body.early, [
    {
      type: 'かなりの高温',
      forecasts: {
        probabilityAboveNormal: { unit: '%', value: '30', bound: '以上' },
        thresholdAboveNormal: { unit: '℃', value: '2.4', bound: '以上' },
      },
      zones: [{ code: '010200', name: '東北地方' }],
    },
    {
      type: '大雪',
      forecasts: {
        probabilityAboveNormal: { unit: '%', value: '30', bound: '以上' },
        thresholdAboveNormal: { unit: '%', value: '223', bound: '以上' },
      },
      zones: [{ code: '010201', name: '東北日本海側' }],
    },
  ]);
  assert.equal(body.mainTexts.length, 1);
  assert.ok(
    body.mainTexts[0]!.text.startsWith(
      '　東北地方では、１２月１０日頃から、気温が平年よりかなり高くなる可能性があります。',
    ),
  );
  assert.ok(body.mainTexts[0]!.text.endsWith('新川　１２センチ'));
  assert.deepEqual(body.mainTexts[0]!.zones, [{ code: '010200', name: '東北地方' }]);
});
