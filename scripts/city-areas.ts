// Writes src/telegrams/city-areas.ts, the cities (市町村等) of each JMA earthquake area (地震情報／細分区域),
// from the station lists Namazu ships (src/parameter/data/stations.json: every station with its city and
// area). A filter by a city selects its area with it (docs/realtime.md "Filters by place and strength").
// Run again after scripts/build-stations.ts:
//   node --import tsx scripts/city-areas.ts
import { writeFileSync } from 'node:fs';
import { builtinStations } from '../src/parameter/builtin.ts';

const target = new URL('../src/telegrams/city-areas.ts', import.meta.url);

export function cityAreaRows(): string[] {
  const areaOf = new Map<string, string>();
  for (const s of builtinStations().earthquake.items) {
    const known = areaOf.get(s.city.code);
    // A city split between areas would need every one of them; JMA's lists have none.
    if (known !== undefined && known !== s.region.code)
      throw new Error(`city ${s.city.code} lies in ${known} and ${s.region.code}`);
    areaOf.set(s.city.code, s.region.code);
  }
  const byArea = new Map<string, string[]>();
  for (const [city, area] of areaOf) byArea.set(area, [...(byArea.get(area) ?? []), city]);
  return [...byArea]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([area, cities]) => [area, ...cities.sort()].join(' '));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = cityAreaRows();
  writeFileSync(
    target,
    `// Written by scripts/city-areas.ts from src/parameter/data/stations.json: do not edit.
// 出典：気象庁ホームページ（震度観測点一覧、気象庁防災情報XML 個別コード表）を加工して作成
/**
 * The cities (市町村等, 7-digit codes) of each JMA earthquake area (地震情報／細分区域): one row per
 * area, its 3-digit code, then its cities' codes, space-separated.
 */
export const CITY_AREA_ROWS: readonly string[] = ${JSON.stringify(rows, null, 2)};
`,
  );
  console.log(`wrote ${target.pathname} (${rows.length} areas)`);
}
