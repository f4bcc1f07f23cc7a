import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shared station data (JMA's published lists, never copied into the repository). */
export const stationDataRoot = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'shared',
  'data',
  'stations',
);

/**
 * JMA's code table of earthquake areas, cities and intensity stations (気象庁防災情報XML 個別コード表,
 * AreaInformationCity_PointSeismicIntensity): each city (7 digits) with the earthquake areas
 * (地震情報／細分区域, 3 digits) its stations lie in, sorted.
 */
export function codeTableCityAreas(): Map<string, string[]> {
  const csv = readFileSync(
    join(stationDataRoot, 'AreaForecastLocalE_AreaInformationCity_PointSeismicIntensity.csv'),
    'utf8',
  );
  const byCity = new Map<string, Set<string>>();
  for (const line of csv.split('\n')) {
    const [area, , , city] = line.trim().split(',');
    if (!area || !city) continue;
    byCity.set(city, (byCity.get(city) ?? new Set<string>()).add(area));
  }
  return new Map([...byCity].map(([city, areas]) => [city, [...areas].sort()]));
}

/** The earthquake areas of one city in JMA's code table (empty when it lists none). */
export const cityAreasInCodeTable = (city: string): string[] => codeTableCityAreas().get(city) ?? [];
