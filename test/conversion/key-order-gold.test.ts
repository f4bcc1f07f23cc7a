/**
 * Key order is part of a conversion: production's clients compare documents as text, hash them or
 * show them, so Namazu writes every object's keys in the order the production service writes them.
 * Checked on every object of every gold pair, over the keys both documents hold (a key one side
 * lacks is the gold tests' business). The evidence of production's order, where it was decided: its
 * real telegrams (dmdata-json/real-telegrams, real-websocket) and its samples agree on hypocentre
 * {code, name, …}, height {type, unit, value}, magnitude {type, value, unit, condition}, the
 * auxiliary distance {unit, value}, a tsunami forecast height {…, over, value} and a VPWW54 kind's
 * `attentions` before its `condition` (docs/conversion.md "Components").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, keyOrders, readFixture, type GoldPair } from './gold.ts';

/**
 * Where production's own documents disagree, by sample and path: the one sample whose components
 * follow the component page's example rather than every real telegram, and three JMA-sample
 * conversions whose tsunami comments put `warning` first, against production's real 2021-03-20
 * VTSE41 and its documentation (`free` first, as Namazu writes).
 */
const PRODUCTION_DISAGREES: Record<string, RegExp> = {
  'vtse51_rjtd_20160901095500.json': /\.hypocenter(\.coordinate\.height|\.depth)?$|\.magnitude$/,
  'vtse41_jpos_20110311150000.json': /^\$\.body\.comments$/,
  'vtse41_jpos_20151114055628.json': /^\$\.body\.comments$/,
  'vtse41_rjtd_20181204180300.json': /^\$\.body\.comments$/,
};

/** The keys of a `KeyOrder` side that the other side holds too, in that side's order. */
const shared = (keys: string, other: string) => {
  const theirs = new Set(other.split(','));
  return keys
    .split(',')
    .filter((k) => theirs.has(k))
    .join(',');
};

test('every object of every gold pair keeps the production key order', () => {
  const pairs = JSON.parse(readFileSync(join(fixturesRoot, 'pairs.json'), 'utf8')) as GoldPair[];
  let compared = 0;
  const mismatches: string[] = [];
  for (const pair of pairs) {
    const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
    assert.ok(outcome?.ok, `${pair.xml}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
    const sample = pair.json.split('/').pop()!;
    for (const order of keyOrders(outcome.document, JSON.parse(readFixture(pair.json)), /^/)) {
      compared++;
      const ours = shared(order.ours, order.theirs);
      const theirs = shared(order.theirs, order.ours);
      if (ours === theirs || PRODUCTION_DISAGREES[sample]?.test(order.path)) continue;
      mismatches.push(`${sample} ${order.path}: ${ours} | ${theirs}`);
    }
  }
  assert.ok(compared > 20_000, `only ${compared} objects compared`);
  assert.deepEqual(mismatches, []);
});
