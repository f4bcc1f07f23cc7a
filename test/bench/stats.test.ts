import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, percentile } from '../../bench/stats.ts';

test('percentile takes the element at ⌊p/100 · n⌋ of the sorted values, whatever their order', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
  assert.equal(percentile(hundred, 0), 1);
  assert.equal(percentile(hundred, 50), 51);
  assert.equal(percentile(hundred, 90), 91);
  assert.equal(percentile(hundred, 99), 100);
  assert.equal(percentile(hundred, 100), 100);
  assert.equal(hundred[0], 100, 'the values given are left in their order');
  assert.ok(Number.isNaN(percentile([], 99)));
});

test('median is the middle value, the upper of the two middle ones for an even count', () => {
  assert.equal(median([7, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 3);
  assert.equal(median([2.5]), 2.5);
  assert.ok(Number.isNaN(median([])));
});
