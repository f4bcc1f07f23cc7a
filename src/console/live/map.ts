import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { markup, type SafeHtml } from '../html.ts';

/**
 * The map of Japan drawn as SVG on the server (docs/console-live.md "Map data"): the 47 prefectures
 * of MapSVG's map of Japan (CC BY 4.0), as packaged in `@svg-maps/japan`, read from node_modules at
 * first use and kept. Each prefecture is filled with the maximum intensity observed in it, and the
 * epicentre is placed by the map's projection. Nothing is fetched at run time.
 */

/**
 * The package's map is a Mercator projection in its own units. These constants were fitted by least
 * squares to the bounding boxes of Hokkaido, Honshu, Shikoku and Kyushu in Natural Earth's 1:50m
 * coastline (residuals at most 1.5 units, about 7 km); they place Okinawa Island within 0.4 unit.
 */
const X_PER_DEGREE = 19.7223;
const X_AT_ZERO = -2438.71;
const Y_PER_MERCATOR_DEGREE = -19.6633;
const Y_AT_EQUATOR = 1007.42;

const mercator = (latitude: number) =>
  (Math.log(Math.tan(Math.PI / 4 + (latitude * Math.PI) / 360)) * 180) / Math.PI;

export interface MapPoint {
  x: number;
  y: number;
}

/** Map coordinates of a latitude/longitude (one decimal: enough at this scale). */
export function project(latitude: number, longitude: number): MapPoint {
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    x: round(X_PER_DEGREE * longitude + X_AT_ZERO),
    y: round(Y_PER_MERCATOR_DEGREE * mercator(latitude) + Y_AT_EQUATOR),
  };
}

/**
 * The area drawn: 122.5°E–149°E × 23.5°N–46°N, the four main islands, the Nansei islands and the
 * sea east of Hokkaido and Sanriku where many epicentres lie.
 */
const TOP_LEFT = project(46, 122.5);
const BOTTOM_RIGHT = project(23.5, 149);
const VIEW_BOX = `${TOP_LEFT.x} ${TOP_LEFT.y} ${BOTTOM_RIGHT.x - TOP_LEFT.x} ${BOTTOM_RIGHT.y - TOP_LEFT.y}`;

export function onMap(p: MapPoint): boolean {
  return p.x >= TOP_LEFT.x && p.x <= BOTTOM_RIGHT.x && p.y >= TOP_LEFT.y && p.y <= BOTTOM_RIGHT.y;
}

/** The package's prefecture ids by JIS X 0401 prefecture code, the `code` of JMA's `Pref`. */
const PREFECTURE_IDS = [
  'hokkaido', 'aomori', 'iwate', 'miyagi', 'akita', 'yamagata', 'fukushima', 'ibaraki', 'tochigi',
  'gunma', 'saitama', 'chiba', 'tokyo', 'kanagawa', 'niigata', 'toyama', 'ishikawa', 'fukui',
  'yamanashi', 'nagano', 'gifu', 'shizuoka', 'aichi', 'mie', 'shiga', 'kyoto', 'osaka', 'hyogo',
  'nara', 'wakayama', 'tottori', 'shimane', 'okayama', 'hiroshima', 'yamaguchi', 'tokushima',
  'kagawa', 'ehime', 'kochi', 'fukuoka', 'saga', 'nagasaki', 'kumamoto', 'oita', 'miyazaki',
  'kagoshima', 'okinawa',
]; // prettier-ignore

export interface Prefecture {
  /** JIS code, `01`–`47`. */
  code: string;
  /** SVG path data in map units. */
  path: string;
}

let prefectures: Prefecture[] | undefined;

/** The 47 prefectures' outlines, in JIS code order. */
export function prefectureOutlines(): Prefecture[] {
  if (prefectures) return prefectures;
  const require = createRequire(import.meta.url);
  // The package's index.js is one `export default` of a JSON object; read as data, not imported.
  const text = readFileSync(require.resolve('@svg-maps/japan'), 'utf8');
  const data = JSON.parse(text.replace(/^\s*export default\s*/, '').replace(/;\s*$/, '')) as {
    locations?: { id?: unknown; path?: unknown }[];
  };
  const paths = new Map<unknown, unknown>((data.locations ?? []).map((l) => [l.id, l.path]));
  prefectures = PREFECTURE_IDS.map((id, i) => {
    const path = paths.get(id);
    if (typeof path !== 'string') throw new Error(`@svg-maps/japan has no outline for ${id}`);
    return { code: String(i + 1).padStart(2, '0'), path };
  });
  return prefectures;
}

/** The JMA seismic intensity classes, weakest first, with the fill of their map symbols. */
export const intensityColours: Record<string, string> = {
  '1': '#f2f2ff',
  '2': '#00aaff',
  '3': '#0041ff',
  '4': '#fae696',
  '5-': '#ffe600',
  '5+': '#ff9900',
  '6-': '#ff2800',
  '6+': '#a50021',
  '7': '#b40068',
};

/** The CSS class of an intensity's colour chip (`5-` → `int-5m`). */
export function intensityClass(maxInt: string): string {
  return `int-${maxInt.replace('-', 'm').replace('+', 'p')}`;
}

/** A station's intensity placed on the map (quake.ts places it from the station list). */
export interface MapStation {
  code: string;
  name: string;
  int: string;
  /** The intensity in the page's words (its symbol's name for pointers and screen readers). */
  said: string;
  point: MapPoint;
}

/** `!5-` (5-lower or above, not yet reported) has no class colour: drawn grey. */
const UNREPORTED = '#9a9a9a';

/** The colour of a station symbol for an intensity class. */
export const stationColour = (int: string) => intensityColours[int] ?? UNREPORTED;

/** The CSS class of a station's colour chip (the page's CSP allows no inline style). */
export const stationClass = (int: string) =>
  Object.hasOwn(intensityColours, int) ? intensityClass(int) : 'int-unreported';

export interface MapQuake {
  latitude: number;
  longitude: number;
  maxInt: string | null;
}

/** A prefecture's maximum intensity, by JIS code (the `Pref` of the intensity report). */
export interface PrefectureIntensity {
  code: string;
  maxInt: string;
}

const LAND = '#fdfdf8';

/**
 * The map: every prefecture filled with the colour of its maximum intensity in `observed` (land
 * colour when none was observed there), and the epicentre of `quake` as a cross in the colour of the
 * maximum intensity. `label` is the map's accessible name; the intensities are listed beside it.
 */
export function renderMap(
  quake: MapQuake | null,
  observed: readonly PrefectureIntensity[],
  label: string,
  stations: readonly MapStation[] = [],
): SafeHtml {
  const at = quake ? project(quake.latitude, quake.longitude) : null;
  const shown = at && onMap(at) ? at : null;
  const fill = (quake?.maxInt && intensityColours[quake.maxInt]) ?? '#d00';
  const maxIntOf = new Map(observed.map((p) => [p.code, p.maxInt]));

  const outlines = prefectureOutlines().map(({ code, path }) => {
    const maxInt = maxIntOf.get(code);
    const colour = (maxInt && intensityColours[maxInt]) ?? LAND;
    return markup`<path id="pref-${code}" d="${path}" fill="${colour}"${maxInt ? markup` data-max-int="${maxInt}"` : null}/>`;
  });
  return markup`<svg class="map" id="quake-map" viewBox="${VIEW_BOX}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">
<rect x="${TOP_LEFT.x}" y="${TOP_LEFT.y}" width="${BOTTOM_RIGHT.x - TOP_LEFT.x}" height="${BOTTOM_RIGHT.y - TOP_LEFT.y}" fill="#eaf2f8"/>
<g stroke="#6b7b8c" stroke-width="0.4" stroke-linejoin="round">${outlines}</g>
<g id="stations" stroke="#333" stroke-width="0.35">${stationSymbols(stations)}</g>
<g id="epicentre" visibility="${shown ? 'visible' : 'hidden'}" transform="translate(${shown?.x ?? 0} ${shown?.y ?? 0})">
<circle r="9" fill="${fill}" stroke="#000" stroke-width="1.5" fill-opacity="0.85"/>
<path d="M-6 -6L6 6M-6 6L6 -6" stroke="#000" stroke-width="2.2"/>
</g>
</svg>`;
}

/**
 * One small disc per station, weakest drawn first so that the strongest stay on top where symbols
 * overlap; each names its station and intensity for pointers and tests.
 */
function stationSymbols(stations: readonly MapStation[]): SafeHtml[] {
  const rank = (int: string) => Object.keys(intensityColours).indexOf(int);
  return [...stations]
    .sort((a, b) => rank(a.int) - rank(b.int))
    .map(
      (s) =>
        markup`<circle class="station" cx="${s.point.x}" cy="${s.point.y}" r="2.4" fill="${stationColour(s.int)}" data-code="${s.code}" data-int="${s.int}"><title>${s.name} ${s.said}</title></circle>`,
    );
}
