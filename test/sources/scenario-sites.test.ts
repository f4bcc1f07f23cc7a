/**
 * The sites of earthquake scenarios ship as data (src/sources/scenario/data/scenario-sites.json):
 * what scripts/scenario-sites.ts makes of the JMA XML fixtures, read by sites.ts as the lists that
 * scenarios evaluate (docs/sources.md "Where codes and positions come from").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildScenarioSites, formatScenarioSites } from '../../scripts/scenario-sites.ts';
import * as sites from '../../src/sources/scenario/sites.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';

const shipped = readFileSync(sites.scenarioSitesPath, 'utf8');

test('the shipped scenario sites are what scripts/scenario-sites.ts makes of the JMA XML fixtures', () => {
  const built = buildScenarioSites(jmaXmlRoot);
  assert.deepEqual(JSON.parse(shipped), built);
  assert.equal(shipped, formatScenarioSites(built), 'written as the script writes it');
});

test('sites.ts hands out the shipped lists, a hierarchy without dangling codes', () => {
  const file = JSON.parse(shipped) as sites.ScenarioSites;
  assert.deepEqual(
    [
      sites.EPICENTRES,
      sites.PREFECTURES,
      sites.AREAS,
      sites.CITIES,
      sites.STATIONS,
      sites.EEW_PREFECTURES,
      sites.TSUNAMI_AREAS,
    ],
    [
      file.epicentres,
      file.prefectures,
      file.areas,
      file.cities,
      file.stations,
      file.eewPrefectures,
      file.tsunamiAreas,
    ],
  );
  // The counts docs/sources.md states.
  assert.deepEqual(
    [sites.EPICENTRES, sites.PREFECTURES, sites.AREAS, sites.CITIES, sites.STATIONS].map((l) => l.length),
    [23, 45, 160, 1481, 3303],
  );
  const codes = (rows: readonly (readonly unknown[])[]) => new Set(rows.map((r) => r[0]));
  const prefectures = codes(sites.PREFECTURES);
  const areas = codes(sites.AREAS);
  const cities = codes(sites.CITIES);
  const eewPrefectures = codes(sites.EEW_PREFECTURES);
  for (const [code, , pref, , , eewPref] of sites.AREAS) {
    assert.ok(prefectures.has(pref), `area ${code}: prefecture ${pref}`);
    assert.ok(eewPref === '' || eewPrefectures.has(eewPref), `area ${code}: EEW prefecture ${eewPref}`);
  }
  for (const [code, , area] of sites.CITIES) assert.ok(areas.has(area), `city ${code}: area ${area}`);
  for (const [code, , city] of sites.STATIONS) assert.ok(cities.has(city), `station ${code}: city ${city}`);
  for (const [code, name, lat, lon] of [...sites.EPICENTRES, ...sites.TSUNAMI_AREAS])
    assert.ok(Math.abs(lat) <= 90 && Math.abs(lon) <= 180 && name !== '', `${code}: ${lat}, ${lon}`);
});
