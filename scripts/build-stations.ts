// Writes src/parameter/data/stations.json, the station lists Namazu ships, from JMA's published lists
// (docs/parameter.md "Sources"). Run again when JMA publishes newer lists:
//   node --import tsx scripts/build-stations.ts [STATIONS_DIR]   (default ../shared/data/stations)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinStationsPath, packStations } from '../src/parameter/builtin.ts';
import { readIntensityStations, readTsunamiPoints } from '../src/parameter/published.ts';

/** When JMA applied the lists this release ships: 2026-03-12 12:00 JST. */
export const BUILTIN_CHANGE_TIME = '2026-03-12T03:00:00.000Z';
export const ATTRIBUTION =
  '出典：気象庁ホームページ（震度観測点一覧、気象庁防災情報XML 個別コード表）を加工して作成';

export function buildStations(dir: string) {
  return packStations(
    ATTRIBUTION,
    {
      changeTime: BUILTIN_CHANGE_TIME,
      items: readIntensityStations(readFileSync(join(dir, 'jma-intensity-stations.json'), 'utf8')),
    },
    {
      changeTime: BUILTIN_CHANGE_TIME,
      items: readTsunamiPoints(readFileSync(join(dir, 'PointTsunami.csv'), 'utf8')),
    },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? join(import.meta.dirname, '..', '..', 'shared', 'data', 'stations');
  mkdirSync(new URL('.', builtinStationsPath), { recursive: true });
  writeFileSync(builtinStationsPath, `${JSON.stringify(buildStations(dir))}\n`);
  console.log(`wrote ${builtinStationsPath.pathname}`);
}
