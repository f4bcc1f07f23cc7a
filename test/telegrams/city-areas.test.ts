// The earthquake areas a filter's cities select (docs/realtime.md "Filters by place and strength"),
// checked against JMA's code table of areas, cities and stations in the shared station data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cityAreaRows } from '../../scripts/city-areas.ts';
import { CITY_AREA_ROWS } from '../../src/telegrams/city-areas.ts';
import { earthquakeAreasOfCities } from '../../src/telegrams/place-filters.ts';
import { codeTableCityAreas } from '../support/station-data.ts';

test('every city of JMA’s code table selects the earthquake area it lies in', () => {
  const table = codeTableCityAreas();
  assert.ok(table.size > 1800, String(table.size));
  for (const [city, areas] of table) assert.deepEqual(earthquakeAreasOfCities([city]), areas, city);
  // Several cities: each area once, sorted. 金沢市 and 加賀市 lie in 石川県加賀, 輪島市 in 石川県能登.
  assert.deepEqual(table.get('1720100'), ['391']);
  assert.deepEqual(table.get('1720400'), ['390']);
  assert.deepEqual(earthquakeAreasOfCities(['1720100', '1720600', '1720400']), ['390', '391']);
});

test('codes other than cities select nothing more', () => {
  const table = codeTableCityAreas();
  // A prefecture, an earthquake area, a tsunami forecast area, a 府県予報区, an unknown 7-digit code.
  for (const code of ['17', '391', '9170', '1700000']) assert.ok(!table.has(code), code);
  assert.deepEqual(earthquakeAreasOfCities(['17', '391', '9170', '1700000']), []);
});

test('the shipped table is the one its script writes from the shipped station lists', () => {
  assert.deepEqual(CITY_AREA_ROWS, cityAreaRows());
});
