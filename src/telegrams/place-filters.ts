// The filters by place and strength a connection may ask for (docs/realtime.md "Filters by place and
// strength"), read and checked the same way from a JSON body (POST /v2/socket) and from query
// parameters (GET /v2/stream): a bad value names its field, and nothing is started. And what a
// city named in `areas` selects besides itself.
import { CITY_AREA_ROWS } from './city-areas.ts';
import { INTENSITIES, type Intensity } from './facts.ts';

export interface PlaceFilters {
  /** Prefecture codes (JIS X 0401) and JMA area codes; null = every place. */
  areas: string[] | null;
  /** Earthquake and early-warning telegrams below this intensity are dropped; null = none. */
  minIntensity: Intensity | null;
}

/** Most codes one `areas` filter may list. */
export const MAX_AREAS = 100;

/** The fields' messages (docs/api-contract.md "Errors"). */
export const placeFilterMessages = {
  areas: `The \`areas\` is a list of up to ${MAX_AREAS} codes: prefecture codes (01–47) or JMA area codes (3 to 7 digits).`,
  minIntensity: `The \`minIntensity\` is one of ${INTENSITIES.join(', ')}.`,
} as const;

export type PlaceFiltersOutcome =
  { ok: true; value: PlaceFilters } | { ok: false; field: keyof typeof placeFilterMessages; message: string };

/** A prefecture code, or a JMA area, city, station or forecast-area code. */
export const AREA_CODE_PATTERN = '^(0[1-9]|[1-3][0-9]|4[0-7]|[0-9]{3,7})$';
const AREA_CODE = new RegExp(AREA_CODE_PATTERN);

/**
 * Reads both filters, from a JSON body or from a query. `areas`: in a body, an array of codes; in a
 * query, comma-separated codes, in one parameter or several (repeated); absent, null or empty = none.
 * `minIntensity`: one intensity; in a query a `+` sent unencoded arrives as a space and is read as
 * `+`. Repeats are dropped and the codes sorted, so that equal filters are equal.
 */
export function parsePlaceFilters(
  input: { areas?: unknown; minIntensity?: unknown },
  from: 'body' | 'query',
): PlaceFiltersOutcome {
  const areas = readAreas(input.areas, from);
  if (areas === undefined) return { ok: false, field: 'areas', message: placeFilterMessages.areas };
  const minIntensity = readIntensity(input.minIntensity, from);
  if (minIntensity === undefined)
    return { ok: false, field: 'minIntensity', message: placeFilterMessages.minIntensity };
  return { ok: true, value: { areas, minIntensity } };
}

/** The codes, null for none, undefined when malformed. */
function readAreas(raw: unknown, from: 'body' | 'query'): string[] | null | undefined {
  if (raw === undefined || raw === null) return null;
  const values = from === 'query' && typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(values) || values.length > MAX_AREAS) return undefined;
  const codes = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') return undefined;
    // An empty query parameter (`areas=`) names nothing.
    if (from === 'query' && value === '') continue;
    for (const code of from === 'query' ? value.split(',') : [value]) {
      if (!AREA_CODE.test(code)) return undefined;
      codes.add(code);
    }
  }
  if (codes.size > MAX_AREAS) return undefined;
  return codes.size === 0 ? null : [...codes].sort();
}

/** The intensity, null for none, undefined when malformed. */
function readIntensity(raw: unknown, from: 'body' | 'query'): Intensity | null | undefined {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') return undefined;
  const value = from === 'query' ? raw.replace(/^([56]) $/, '$1+') : raw;
  return (INTENSITIES as readonly string[]).includes(value) ? (value as Intensity) : undefined;
}

const areaOfCity = new Map(
  CITY_AREA_ROWS.flatMap((row) => {
    const [area, ...cities] = row.split(' ');
    return cities.map((city) => [city, area!] as const);
  }),
);

/**
 * The earthquake areas (地震情報／細分区域) the cities (市町村等, 7 digits) among `codes` lie in,
 * sorted, without repeats; other codes select none. Earthquake and early-warning telegrams name
 * these areas where they name no city (docs/realtime.md "Filters by place and strength").
 */
export function earthquakeAreasOfCities(codes: readonly string[]): string[] {
  const areas = new Set<string>();
  for (const code of codes) {
    const area = areaOfCity.get(code);
    if (area !== undefined) areas.add(area);
  }
  return [...areas].sort();
}
