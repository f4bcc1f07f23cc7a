import { StationListInvalid, type EarthquakeStation, type TsunamiStation } from './stations.ts';

/**
 * Readers of JMA's published station lists (docs/parameter.md "Sources"): the seismic-intensity
 * stations with positions (a JSON array, one object per station as JMA's list and code table give
 * it) and the code table of tsunami observation points (CSV: code, name, furigana, parent code,
 * parent name, note). Every row is checked; one bad row refuses the whole file, naming the row.
 */

const STATION_CODE = /^\d{7}$/;
const REGION_CODE = /^\d{3}$/;
/**
 * A tsunami observation point's code is five digits in JMA's telegrams (`01609`); code tables that
 * went through a spreadsheet lost the leading zeros (`1609`), which are put back.
 */
const TSUNAMI_CODE = /^\d{3,5}$/;
const TSUNAMI_CODE_DIGITS = 5;
/** JMA's stations lie within these bounds (Japan and its islands), degrees. */
const LATITUDE = { min: 20, max: 46 };
const LONGITUDE = { min: 122, max: 154 };

const text = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

function degrees(v: unknown, range: { min: number; max: number }): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).trim();
  if (!/^\d{1,3}(\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  return n >= range.min && n <= range.max ? s : null;
}

function namedCode(v: unknown, pattern: RegExp): { code: string; name: string; kana: string } | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (!text(o.code) || !pattern.test(o.code) || !text(o.name) || !text(o.furigana)) return null;
  return { code: o.code, name: o.name, kana: o.furigana };
}

function refuse(row: number, what: string): never {
  throw new StationListInvalid(`row ${row}: ${what}`);
}

function noDuplicates(codes: string[]): void {
  const seen = new Set<string>();
  codes.forEach((code, i) => {
    if (seen.has(code)) refuse(i + 1, `station code ${code} appears twice`);
    seen.add(code);
  });
}

/** The seismic-intensity stations of a published JSON list, in the parameter API's item shape. */
export function readIntensityStations(json: string): EarthquakeStation[] {
  let rows: unknown;
  try {
    rows = JSON.parse(json);
  } catch (err) {
    throw new StationListInvalid(`not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(rows) || rows.length === 0)
    throw new StationListInvalid('expected a non-empty JSON array of stations');
  const stations = rows.map((raw: unknown, i): EarthquakeStation => {
    const row = i + 1;
    if (typeof raw !== 'object' || raw === null) refuse(row, 'not an object');
    const o = raw as Record<string, unknown>;
    if (!text(o.code) || !STATION_CODE.test(o.code)) refuse(row, 'code is not 7 digits');
    if (!text(o.name) || !text(o.furigana)) refuse(row, `station ${o.code} has no name or furigana`);
    const region = namedCode(o.area, REGION_CODE) ?? refuse(row, `station ${o.code} has no valid area`);
    const city = namedCode(o.city, STATION_CODE) ?? refuse(row, `station ${o.code} has no valid city`);
    const latitude = degrees(o.lat, LATITUDE) ?? refuse(row, `station ${o.code} has no latitude in Japan`);
    const longitude = degrees(o.lon, LONGITUDE) ?? refuse(row, `station ${o.code} has no longitude in Japan`);
    if (!text(o.affi)) refuse(row, `station ${o.code} has no operator (affi)`);
    return {
      region,
      city,
      noCode: o.code,
      code: o.code,
      name: o.name,
      kana: o.furigana,
      status: '現',
      owner: o.affi,
      latitude,
      longitude,
    };
  });
  noDuplicates(stations.map((s) => s.code));
  return stations;
}

/** The tsunami observation points of JMA's published CSV code table. */
export function readTsunamiPoints(csv: string): TsunamiStation[] {
  const lines = csv.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new StationListInvalid('the file has no rows');
  const points = lines.map((line, i): TsunamiStation => {
    const row = i + 1;
    const cells = line.split(',');
    if (cells.length !== 6) refuse(row, `expected 6 comma-separated columns, found ${cells.length}`);
    const [rawCode, name, kana] = cells as [string, string, string];
    if (!TSUNAMI_CODE.test(rawCode)) refuse(row, 'code is not 3 to 5 digits');
    const code = rawCode.padStart(TSUNAMI_CODE_DIGITS, '0');
    if (!text(name) || !text(kana)) refuse(row, `point ${code} has no name or furigana`);
    return { area: null, prefecture: null, code, name, kana, owner: '', latitude: '', longitude: '' };
  });
  noDuplicates(points.map((p) => p.code));
  return points;
}
