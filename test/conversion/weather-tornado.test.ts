import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('weather-tornado');
fixtureSchemaTests(['VPHW51']);

test('VPHW51 京都府 with a sighting in 北部: witnesses from the head, prefecture-wide target, municipalities', () => {
  const outcome = convertFixture(fixture('official', '19_06_01_140425_VPHW51.xml'), 'VPHW51');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const { document } = outcome;
  assert.equal(document.validDateTime, '2014-02-12T14:30:00+09:00');
  assert.equal(document.eventId, null);
  assert.equal(document.serialNo, '1');
  const body = document.body as {
    witnesses: unknown;
    targets: unknown;
    cities: { code: string; name: string; kinds: unknown[] }[];
  };
  const issued = [{ code: '1', name: '竜巻注意情報', status: '発表' }];
  assert.deepEqual(body.witnesses, [{ code: '260020', name: '北部' }]);
  assert.deepEqual(body.targets, [{ code: '260000', name: '京都府', kinds: issued }]);
  assert.equal(body.cities.length, 26);
  assert.deepEqual(body.cities.slice(0, 2), [
    { code: '2610000', name: '京都市', kinds: issued },
    { code: '2620100', name: '福知山市', kinds: issued },
  ]);
});
