import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, goldPairs, keyOrders, readFixture } from './gold.ts';

/** Every key-order mismatch at `at` between the conversion and production's JSON, over the schemas' gold pairs. */
function keyOrderMismatches(schemas: string[], at: RegExp): { compared: number; mismatches: string[] } {
  let compared = 0;
  const mismatches: string[] = [];
  for (const pair of schemas.flatMap((schema) => goldPairs(schema))) {
    const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
    assert.ok(outcome?.ok, `${pair.xml}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
    for (const order of keyOrders(outcome.document, JSON.parse(readFixture(pair.json)), at)) {
      compared++;
      if (order.ours !== order.theirs)
        mismatches.push(`${pair.json.split('/').pop()} ${order.path}: ${order.ours} | ${order.theirs}`);
    }
  }
  return { compared, mismatches };
}

// Production writes the distance from the auxiliary mark as {unit, value}: all 27 tsunami samples
// that carry one, and its real 2021-03-20 VXSE53 conversion
// (dmdata-json/sample-telegrams/earthquake-information/vxse53_rjtd_20210320181304.json), agree.
test('the hypocentre auxiliary distance is written unit first, as production writes it', () => {
  const { compared, mismatches } = keyOrderMismatches(
    ['tsunami-information', 'earthquake-information'],
    /\.hypocenter\.auxiliary\.distance$/,
  );
  assert.ok(compared >= 20, `only ${compared} distances compared`);
  assert.deepEqual(mismatches, []);
});

// VPWW54 kinds: production writes `attentions` before `condition` in every sample that has both,
// in both converter versions the samples show (the vpww54_jptk_* files and their vpww54_rjtd_*
// re-renderings, which add `condition: 値なし`).
test('a VPWW54 kind writes attentions before condition, as production writes it', () => {
  const { compared, mismatches } = keyOrderMismatches(['weather-warning'], /\.kinds\[\]$/);
  assert.ok(compared >= 50, `only ${compared} kinds compared`);
  assert.deepEqual(mismatches, []);
});
