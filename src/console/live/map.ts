import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { feature } from 'topojson-client';
import type { GeometryObject, Topology } from 'topojson-specification';
import { markup, type SafeHtml } from '../html.ts';

/**
 * The map of Japan drawn as SVG on the server. The coastline is Natural Earth's 1:50m country
 * outline (public domain) from the `world-atlas` package (docs/console-live.md "Map data"), read from
 * node_modules at first use, projected and thinned once, and kept. Nothing is fetched at run time.
 */

/** The area drawn, in degrees: the four main islands, Okinawa and the Ogasawara islands' latitudes. */
const WEST = 122.5;
const EAST = 149;
const SOUTH = 23.5;
const NORTH = 46;
/** Equirectangular with the x scale of 36°N, so Honshu keeps its shape. */
const X_SCALE = Math.cos((36 * Math.PI) / 180);
const UNIT = 20;
export const MAP_WIDTH = Math.round((EAST - WEST) * X_SCALE * UNIT);
export const MAP_HEIGHT = Math.round((NORTH - SOUTH) * UNIT);
/** Points closer than this (in map units) to the previous kept point are dropped. */
const THIN = 0.8;
/** Japan in the ISO 3166-1 numeric codes world-atlas uses as feature ids. */
const JAPAN = '392';

export interface MapPoint {
  x: number;
  y: number;
}

/** Map coordinates of a latitude/longitude (one decimal: enough at this scale). */
export function project(latitude: number, longitude: number): MapPoint {
  const round = (v: number) => Math.round(v * 10) / 10;
  return { x: round((longitude - WEST) * X_SCALE * UNIT), y: round((NORTH - latitude) * UNIT) };
}

export function onMap(p: MapPoint): boolean {
  return p.x >= 0 && p.x <= MAP_WIDTH && p.y >= 0 && p.y <= MAP_HEIGHT;
}

let outline: string | undefined;

/** The SVG path data of Japan's coastline. */
export function japanOutline(): string {
  if (outline !== undefined) return outline;
  const require = createRequire(import.meta.url);
  const topology = JSON.parse(
    readFileSync(require.resolve('world-atlas/countries-50m.json'), 'utf8'),
  ) as Topology<{ countries: GeometryObject }>;
  const countries = feature(topology, topology.objects.countries);
  const japan = 'features' in countries ? countries.features.find((f) => String(f.id) === JAPAN) : undefined;
  const geometry = japan?.geometry;
  const polygons =
    geometry?.type === 'MultiPolygon'
      ? geometry.coordinates
      : geometry?.type === 'Polygon'
        ? [geometry.coordinates]
        : [];
  const parts: string[] = [];
  for (const polygon of polygons) {
    for (const ring of polygon) {
      const kept: MapPoint[] = [];
      for (const [lon, lat] of ring as [number, number][]) {
        const p = project(lat, lon);
        const last = kept.at(-1);
        if (!last || Math.abs(p.x - last.x) + Math.abs(p.y - last.y) >= THIN) kept.push(p);
      }
      if (kept.length < 3) continue;
      parts.push('M' + kept.map((p) => `${p.x} ${p.y}`).join('L') + 'Z');
    }
  }
  outline = parts.join('');
  return outline;
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

export interface MapQuake {
  latitude: number;
  longitude: number;
  maxInt: string | null;
}

/**
 * The map with the epicentre of `quake` (a cross in the colour of its maximum intensity) or none.
 * `label` is the map's accessible name.
 */
export function renderMap(quake: MapQuake | null, label: string): SafeHtml {
  const at = quake ? project(quake.latitude, quake.longitude) : null;
  const shown = at && onMap(at) ? at : null;
  const fill = (quake?.maxInt && intensityColours[quake.maxInt]) ?? '#d00';
  return markup`<svg class="map" id="quake-map" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">
<rect width="${MAP_WIDTH}" height="${MAP_HEIGHT}" fill="#eaf2f8"/>
<path d="${japanOutline()}" fill="#fdfdf8" stroke="#6b7b8c" stroke-width="0.8" stroke-linejoin="round"/>
<g id="epicentre" visibility="${shown ? 'visible' : 'hidden'}" transform="translate(${shown?.x ?? 0} ${shown?.y ?? 0})">
<circle r="11" fill="${fill}" stroke="#000" stroke-width="1.5" fill-opacity="0.85"/>
<path d="M-7 -7L7 7M-7 7L7 -7" stroke="#000" stroke-width="2.5"/>
</g>
</svg>`;
}
