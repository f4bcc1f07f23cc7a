import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GdFilterError,
  parseDateFilter,
  parseHypocenterFilter,
  parseMaxIntFilter,
} from '../../src/gd/filters.ts';

const rejects = (fn: () => unknown, parameter: string) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GdFilterError);
    assert.equal(err.parameter, parameter);
    assert.equal(err.message, `Unexpected data of search query \`${parameter}\`.`);
    return true;
  });

describe('earthquake list filters', () => {
  it('hypocenter: exactly three digits', () => {
    assert.equal(parseHypocenterFilter('289'), '289');
    assert.equal(parseHypocenterFilter('010'), '010');
    for (const bad of ['', '28', '2890', 'abc', '28a', ' 289', '２８９', '289\n'])
      rejects(() => parseHypocenterFilter(bad), 'hypocenter');
  });

  it('maxInt: the nine classes; a + decoded to a space is read as +', () => {
    for (const value of ['1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'])
      assert.equal(parseMaxIntFilter(value), value);
    assert.equal(parseMaxIntFilter('5 '), '5+');
    assert.equal(parseMaxIntFilter('6 '), '6+');
    for (const bad of ['', '0', '5', '6', '8', '5弱', '4+', '4 ', '7-', ' 5+', '5+ ', '5%2B', 'null'])
      rejects(() => parseMaxIntFilter(bad), 'maxInt');
  });

  it('date: an existing yyyy-MM-dd; a time part is ignored', () => {
    assert.equal(parseDateFilter('2021-02-13'), '2021-02-13');
    assert.equal(parseDateFilter('2021-02-13T23:08:00'), '2021-02-13');
    assert.equal(parseDateFilter('2021-02-13 23:08'), '2021-02-13');
    assert.equal(parseDateFilter('2024-02-29'), '2024-02-29');
    for (const bad of [
      '',
      '2021-2-13',
      '20210213',
      '2021-02-30',
      '2023-02-29',
      '2021-13-01',
      '0000-01-01',
      '2021-02-13x',
      'tomorrow',
    ])
      rejects(() => parseDateFilter(bad), 'date');
  });
});
