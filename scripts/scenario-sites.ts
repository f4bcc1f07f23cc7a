/**
 * Writes src/sources/scenario/data/scenario-sites.json: the JMA codes, names and positions that
 * earthquake scenarios evaluate (docs/sources.md "Where codes and positions come from"; the fields
 * are described by ScenarioSites in src/sources/scenario/sites.ts), extracted from the JMA XML
 * fixtures (the directory given, else NAMAZU_FIXTURES, else ../shared/fixtures beside the repository):
 *
 * - epicentre areas (震央地名): code, name and the hypocentre coordinate they were issued with;
 * - the intensity hierarchy of VXSE51/53: prefecture → area (地震情報／細分区域) → city → station;
 * - the EEW forecast prefecture (緊急地震速報／府県予報区) of each area, from VXSE43/44/45;
 * - the tsunami forecast areas (津波予報区) of VTSE41.
 *
 * JMA XML gives no positions for areas or stations. An area takes the coordinate of the epicentre
 * area of the same name (JMA names most land epicentre areas after the intensity area: 茨城県南部,
 * 石川県能登地方), else the position of its prefecture's office; a station takes its area's.
 *
 * Run: node --import tsx scripts/scenario-sites.ts [JMA_XML_DIR]
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseIso6709 } from '../src/conversion/coordinate.ts';
import { parseXmlElement, type XmlElement } from '../src/conversion/xml-element.ts';
import type { ScenarioSites } from '../src/sources/scenario/sites.ts';

/**
 * Prefectural government offices (都道府県庁所在地), latitude and longitude in degrees, as the
 * Geospatial Information Authority of Japan publishes them; keyed by JMA's prefecture code
 * (地震情報／都道府県等), which is the JIS prefecture code.
 */
const PREFECTURE_OFFICES: Record<string, [number, number]> = {
  '01': [43.0642, 141.3469],
  '02': [40.8244, 140.74],
  '03': [39.7036, 141.1525],
  '04': [38.2689, 140.8719],
  '05': [39.7186, 140.1025],
  '06': [38.2406, 140.3633],
  '07': [37.75, 140.4678],
  '08': [36.3414, 140.4467],
  '09': [36.5658, 139.8836],
  '10': [36.3911, 139.0608],
  '11': [35.8569, 139.6489],
  '12': [35.6047, 140.1233],
  '13': [35.6894, 139.6917],
  '14': [35.4478, 139.6425],
  '15': [37.9022, 139.0236],
  '16': [36.6953, 137.2114],
  '17': [36.5944, 136.6256],
  '18': [36.0653, 136.2219],
  '19': [35.6639, 138.5683],
  '20': [36.6514, 138.1811],
  '21': [35.3911, 136.7222],
  '22': [34.9769, 138.3831],
  '23': [35.1803, 136.9067],
  '24': [34.7303, 136.5086],
  '25': [35.0044, 135.8683],
  '26': [35.0214, 135.7556],
  '27': [34.6864, 135.52],
  '28': [34.6914, 135.1831],
  '29': [34.6853, 135.8328],
  '30': [34.2261, 135.1675],
  '31': [35.5036, 134.2383],
  '32': [35.4722, 133.0506],
  '33': [34.6617, 133.935],
  '34': [34.3964, 132.4594],
  '35': [34.1858, 131.4714],
  '36': [34.0658, 134.5594],
  '37': [34.3403, 134.0433],
  '38': [33.8417, 132.7661],
  '39': [33.5597, 133.5311],
  '40': [33.6064, 130.4181],
  '41': [33.2494, 130.2989],
  '42': [32.7447, 129.8736],
  '43': [32.7897, 130.7417],
  '44': [33.2381, 131.6125],
  '45': [31.9111, 131.4239],
  '46': [31.5603, 130.5581],
  '47': [26.2125, 127.6811],
};

function xmlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return xmlFiles(path);
      return name.endsWith('.xml') ? [path] : [];
    });
}

const text = (e: XmlElement | undefined) => e?.text.trim() ?? '';
const round = (n: number) => Math.round(n * 1e4) / 1e4;

/** Everything the fixtures name, by code (the first coordinate an epicentre area was issued with). */
function readFixtures(jmaXmlDir: string) {
  const found = {
    epicentres: new Map<string, [string, number, number]>(),
    prefectures: new Map<string, string>(),
    areas: new Map<string, [string, string]>(),
    cities: new Map<string, [string, string]>(),
    stations: new Map<string, [string, string]>(),
    eewPrefOfArea: new Map<string, string>(),
    eewPrefectures: new Map<string, string>(),
    tsunamiAreas: new Map<string, string>(),
  };
  const { epicentres, prefectures, areas, cities, stations, eewPrefOfArea, eewPrefectures } = found;
  for (const path of xmlFiles(jmaXmlDir)) {
    const report = parseXmlElement(readFileSync(path, 'utf8'));
    const body = report.child('Body');
    if (!body) continue;
    for (const earthquake of body.all('Earthquake')) {
      const area = earthquake.at('Hypocenter/Area');
      const code = area?.child('Code');
      const point = parseIso6709(text(area?.child('Coordinate')));
      if (!area || code?.attr('type') !== '震央地名' || !point || epicentres.has(text(code))) continue;
      const lat = Number(point.latitude.value);
      const lon = Number(point.longitude.value);
      epicentres.set(text(code), [text(area.child('Name')), lat, lon]);
    }
    for (const pref of body.allAt('Intensity/Observation/Pref')) {
      const prefCode = text(pref.child('Code'));
      if (!(prefCode in PREFECTURE_OFFICES)) continue;
      prefectures.set(prefCode, text(pref.child('Name')));
      for (const area of pref.all('Area')) {
        const areaCode = text(area.child('Code'));
        areas.set(areaCode, [text(area.child('Name')), prefCode]);
        for (const city of area.all('City')) {
          const cityCode = text(city.child('Code'));
          cities.set(cityCode, [text(city.child('Name')), areaCode]);
          for (const station of city.all('IntensityStation'))
            stations.set(text(station.child('Code')), [text(station.child('Name')), cityCode]);
        }
      }
    }
    for (const pref of body.allAt('Intensity/Forecast/Pref')) {
      const prefCode = text(pref.child('Code'));
      eewPrefectures.set(prefCode, text(pref.child('Name')));
      for (const area of pref.all('Area')) eewPrefOfArea.set(text(area.child('Code')), prefCode);
    }
    for (const item of body.allAt('Tsunami/Forecast/Item'))
      found.tsunamiAreas.set(text(item.at('Area/Code')), text(item.at('Area/Name')));
  }
  return found;
}

const byCode = <V>(map: Map<string, V>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The scenario sites of the JMA XML fixtures under `jmaXmlDir`, each list ordered by code. */
export function buildScenarioSites(jmaXmlDir: string): ScenarioSites {
  const found = readFixtures(jmaXmlDir);
  const { epicentres, prefectures, eewPrefectures } = found;
  const epicentreByName = new Map(
    [...epicentres.values()].map(([name, lat, lon]) => [name, [lat, lon] as const]),
  );
  const areaPosition = (name: string, prefCode: string): [number, number] => {
    const [lat, lon] =
      epicentreByName.get(name) ?? epicentreByName.get(`${name}地方`) ?? PREFECTURE_OFFICES[prefCode]!;
    return [round(lat), round(lon)];
  };
  /** An area no EEW fixture names: the EEW prefecture named as its prefecture (愛媛 for 愛媛県), if one. */
  const eewPrefectureNamed = (prefCode: string): string => {
    const name = prefectures.get(prefCode) ?? '';
    for (const [code, eewName] of eewPrefectures) if (`${eewName}${name.slice(-1)}` === name) return code;
    return '';
  };
  /** A tsunami forecast area named after its prefecture (宮城県, 北海道太平洋沿岸東部) lies off that prefecture. */
  const tsunamiPosition = (name: string): [number, number] | undefined => {
    for (const [code, prefName] of prefectures)
      if (name.startsWith(prefName)) return PREFECTURE_OFFICES[code];
    return undefined;
  };
  return {
    epicentres: byCode(epicentres).map(([code, [name, lat, lon]]) => [code, name, lat, lon]),
    prefectures: byCode(prefectures),
    areas: byCode(found.areas).map(([code, [name, prefCode]]) => [
      code,
      name,
      prefCode,
      ...areaPosition(name, prefCode),
      found.eewPrefOfArea.get(code) ?? eewPrefectureNamed(prefCode),
    ]),
    cities: byCode(found.cities).map(([code, [name, area]]) => [code, name, area]),
    stations: byCode(found.stations).map(([code, [name, city]]) => [code, name, city]),
    eewPrefectures: byCode(eewPrefectures),
    tsunamiAreas: byCode(found.tsunamiAreas).flatMap(([code, name]): [string, string, number, number][] => {
      const at = tsunamiPosition(name);
      return at ? [[code, name, ...at]] : [];
    }),
  };
}

/** JSON with one row of each list per line, so that a change of JMA's codes reads as a short diff. */
export function formatScenarioSites(sites: ScenarioSites): string {
  const lists = Object.entries(sites).map(
    ([key, rows]: [string, unknown[]]) =>
      `  ${JSON.stringify(key)}: [\n${rows.map((row) => `    ${JSON.stringify(row)}`).join(',\n')}\n  ]`,
  );
  return `{\n${lists.join(',\n')}\n}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const repo = join(import.meta.dirname, '..');
  const fixtures = process.env.NAMAZU_FIXTURES ?? join(repo, '..', 'shared', 'fixtures');
  const sites = buildScenarioSites(process.argv[2] ?? join(fixtures, 'jma-xml'));
  const output = join(repo, 'src', 'sources', 'scenario', 'data', 'scenario-sites.json');
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, formatScenarioSites(sites));
  const counts = Object.entries(sites).map(([key, rows]) => `${rows.length} ${key}`);
  console.log(`wrote ${output}: ${counts.join(', ')}`);
}
