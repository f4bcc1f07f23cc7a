// Writes src/telegrams/seismic-areas.ts, the prefecture of each JMA earthquake area (地震情報／細分区域),
// from the station lists Namazu ships (src/parameter/data/stations.json: every area's stations lie in
// cities whose JIS code starts with their prefecture's). Run again after scripts/build-stations.ts:
//   node --import tsx scripts/seismic-areas.ts
import { writeFileSync } from 'node:fs';
import { builtinStations } from '../src/parameter/builtin.ts';

const target = new URL('../src/telegrams/seismic-areas.ts', import.meta.url);

export function seismicAreaRows(): string[] {
  const byArea = new Map<string, { name: string; prefectures: Set<string> }>();
  for (const s of builtinStations().earthquake.items) {
    const area = byArea.get(s.region.code) ?? { name: s.region.name, prefectures: new Set<string>() };
    area.prefectures.add(s.city.code.slice(0, 2));
    byArea.set(s.region.code, area);
  }
  return [...byArea]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([code, { name, prefectures }]) => {
      if (prefectures.size !== 1) throw new Error(`area ${code} lies in ${[...prefectures].join(', ')}`);
      return `${code}${[...prefectures][0]}${name}`;
    });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = seismicAreaRows();
  writeFileSync(
    target,
    `// Written by scripts/seismic-areas.ts from src/parameter/data/stations.json: do not edit.
// 出典：気象庁ホームページ（震度観測点一覧、気象庁防災情報XML 個別コード表）を加工して作成
/** JMA earthquake areas (地震情報／細分区域), each as its 3-digit code, its prefecture's 2 and its name. */
export const SEISMIC_AREA_ROWS: readonly string[] = ${JSON.stringify(rows, null, 2)};
`,
  );
  console.log(`wrote ${target.pathname} (${rows.length} areas)`);
}
