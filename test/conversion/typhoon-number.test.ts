import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withFullYear } from '../../src/conversion/typhoon-number.ts';

test('two-digit years get the century of the report', () => {
  assert.equal(withFullYear('1718', '2017-09-10T09:50:00+09:00'), '201718');
  assert.equal(withFullYear('TC1725', '2017-09-10T09:50:00+09:00'), 'TC201725');
  assert.equal(withFullYear('9918', '1999-09-10T09:50:00+09:00'), '199918');
});

test('anything else is left as written', () => {
  assert.equal(withFullYear('201718', '2017-09-10T09:50:00+09:00'), '201718');
  assert.equal(withFullYear('TC201725', '2017-09-10T09:50:00+09:00'), 'TC201725');
  assert.equal(withFullYear('', '2017-09-10T09:50:00+09:00'), '');
});
