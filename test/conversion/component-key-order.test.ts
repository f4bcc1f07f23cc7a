import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, goldPairs, keyOrders, readFixture } from './gold.ts';

// The shared components are written in the key order the production service writes them: its real
// telegrams (dmdata-json/real-telegrams, real-websocket, 2023 and 2026) and its samples agree on
// hypocenter {code, name, …}, height {type, unit, value} and magnitude {type, value, unit, condition}.
// Clients that compare documents as text, or show them, see the same bytes as from production.
const COMPONENTS = /\.(hypocenter|coordinate\.height|magnitude)$/;

// The one sample that writes them otherwise (name before code, height and depth as the component
// page's example), against every other sample and every real telegram.
const OTHER_ORDER = 'vtse51_rjtd_20160901095500.json';

test('hypocentre, height and magnitude keep the production key order in every gold pair', () => {
  const schemas = ['earthquake-information', 'eew-information', 'tsunami-information', 'volcano-information'];
  const mismatches: string[] = [];
  let compared = 0;
  const pairs = schemas.flatMap((schema) => goldPairs(schema));
  assert.ok(
    pairs.some((p) => p.json.endsWith(OTHER_ORDER)),
    `${OTHER_ORDER} is no longer a gold pair`,
  );
  for (const pair of pairs.filter((p) => !p.json.endsWith(OTHER_ORDER))) {
    const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
    assert.ok(outcome?.ok, `${pair.xml}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
    for (const order of keyOrders(outcome.document, JSON.parse(readFixture(pair.json)), COMPONENTS)) {
      compared++;
      if (order.ours !== order.theirs)
        mismatches.push(`${pair.json.split('/').pop()} ${order.path}: ${order.ours} | ${order.theirs}`);
    }
  }
  assert.ok(compared > 50, `only ${compared} components compared`);
  assert.deepEqual(mismatches, []);
});
