import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, goldPairs, keyOrders, readFixture } from './gold.ts';

// Every tsunami height the production service writes keeps one key order per kind: a forecast or
// estimated maximum {type, unit, over, value} (`over` before the value; every sample with `１０ｍ超`
// or `…超` writes it so), an observed maximum {type, value, over, unit, condition}.
const HEIGHTS = /\.maxHeight\.height$/;

test('tsunami maxHeight.height keeps the production key order, `over` included, in every gold pair', () => {
  const mismatches: string[] = [];
  let withOver = 0;
  for (const pair of goldPairs('tsunami-information')) {
    const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
    assert.ok(outcome?.ok, `${pair.xml}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
    for (const order of keyOrders(outcome.document, JSON.parse(readFixture(pair.json)), HEIGHTS)) {
      if (order.theirs.includes('over') && order.path.includes('forecasts')) withOver++;
      if (order.ours !== order.theirs)
        mismatches.push(`${pair.json.split('/').pop()} ${order.path}: ${order.ours} | ${order.theirs}`);
    }
  }
  assert.ok(withOver >= 30, `only ${withOver} forecast heights with over compared`);
  assert.deepEqual(mismatches, []);
});
