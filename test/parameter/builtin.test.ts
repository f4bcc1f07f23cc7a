import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { builtinStations, builtinStationsPath } from '../../src/parameter/builtin.ts';
import { listVersion } from '../../src/parameter/stations.ts';
import { buildStations } from '../../scripts/build-stations.ts';
import { stationsDir } from './published.ts';

test('the shipped station lists are what scripts/build-stations.ts makes of JMA’s published lists', () => {
  assert.deepEqual(JSON.parse(readFileSync(builtinStationsPath, 'utf8')), buildStations(stationsDir));
});

test('the versions written with the shipped lists are those of the lists a server unpacks from them', () => {
  const { earthquake, tsunami } = builtinStations();
  assert.equal(earthquake.items.length > 4000, true, `${earthquake.items.length} stations`);
  assert.match(earthquake.version, /^[0-9a-f]{16}$/);
  assert.equal(earthquake.version, listVersion(earthquake.changeTime, earthquake.items));
  assert.equal(tsunami.version, listVersion(tsunami.changeTime, tsunami.items));
});
