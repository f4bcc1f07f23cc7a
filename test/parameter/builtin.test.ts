import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { builtinStationsPath } from '../../src/parameter/builtin.ts';
import { buildStations } from '../../scripts/build-stations.ts';
import { stationsDir } from './published.ts';

test('the shipped station lists are what scripts/build-stations.ts makes of JMA’s published lists', () => {
  assert.deepEqual(JSON.parse(readFileSync(builtinStationsPath, 'utf8')), buildStations(stationsDir));
});
