import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, goldPairs, readFixture } from './gold.ts';

// Every tsunami height the production service writes keeps one key order per kind: a forecast or
// estimated maximum {type, unit, over, value} (`over` before the value; every sample with `１０ｍ超`
// or `…超` writes it so), an observed maximum {type, value, over, unit, condition}.
const HEIGHTS = /\.maxHeight\.height$/;

/** `path: our keys | production's keys` for every maxHeight.height present on both sides. */
function heightOrders(actual: unknown, expected: unknown, path = '$'): string[] {
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.flatMap((a, i) => (i < expected.length ? heightOrders(a, expected[i], `${path}[]`) : []));
  }
  if (!isObject(actual) || !isObject(expected)) return [];
  const here = HEIGHTS.test(path)
    ? [`${path}: ${Object.keys(actual).join(',')} | ${Object.keys(expected).join(',')}`]
    : [];
  return [
    ...here,
    ...Object.keys(actual)
      .filter((k) => k in expected)
      .flatMap((k) => heightOrders(actual[k], expected[k], `${path}.${k}`)),
  ];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

test('tsunami maxHeight.height keeps the production key order, `over` included, in every gold pair', () => {
  const mismatches: string[] = [];
  let withOver = 0;
  for (const pair of goldPairs('tsunami-information')) {
    const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
    assert.ok(outcome?.ok, `${pair.xml}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
    for (const line of heightOrders(outcome.document, JSON.parse(readFixture(pair.json)))) {
      const [ours, theirs] = line.split(': ')[1]!.split(' | ');
      if (theirs!.includes('over') && line.includes('forecasts')) withOver++;
      if (ours !== theirs) mismatches.push(`${pair.json.split('/').pop()} ${line}`);
    }
  }
  assert.ok(withOver >= 30, `only ${withOver} forecast heights with over compared`);
  assert.deepEqual(mismatches, []);
});
