import {
  classRank,
  epicentralDistanceKm,
  instrumentalIntensity,
  intensityClass,
  type IntensityClass,
  type Source,
} from './attenuation.ts';
import { AREAS, CITIES, EEW_PREFECTURES, EPICENTRES, PREFECTURES, STATIONS, TSUNAMI_AREAS } from './sites.ts';

/** An intensity area (地震情報／細分区域) with the intensity a scenario gives it. */
export interface AreaIntensity {
  code: string;
  name: string;
  prefCode: string;
  /** EEW forecast prefecture (緊急地震速報／府県予報区) code; '' when unknown. */
  eewPrefCode: string;
  /** Hypocentral distance, km. */
  distanceKm: number;
  intensity: IntensityClass;
}

/** Areas of a source with intensity 1 or more, strongest first (then nearest). */
export function areaIntensities(source: Source): AreaIntensity[] {
  return AREAS.map(([code, name, prefCode, lat, lon, eewPrefCode]) => ({
    code,
    name,
    prefCode,
    eewPrefCode,
    distanceKm: Math.hypot(epicentralDistanceKm(source.latitude, source.longitude, lat, lon), source.depthKm),
    intensity: intensityClass(instrumentalIntensity(source, lat, lon)),
  }))
    .filter((a) => classRank(a.intensity) >= 1)
    .sort((a, b) => classRank(b.intensity) - classRank(a.intensity) || a.distanceKm - b.distanceKm);
}

export const prefectureName = new Map(PREFECTURES.map(([code, name]) => [code, name]));
export const eewPrefectureName = new Map(EEW_PREFECTURES.map(([code, name]) => [code, name]));

const citiesByArea = groupBy(CITIES, (c) => c[2]);
const stationsByCity = groupBy(STATIONS, (s) => s[2]);

/** The cities of an area and their intensity stations, by code. */
export function citiesOf(areaCode: string): { code: string; name: string; stations: [string, string][] }[] {
  return (citiesByArea.get(areaCode) ?? []).map(([code, name]) => ({
    code,
    name,
    stations: (stationsByCity.get(code) ?? []).map(([s, n]) => [s, n] as [string, string]),
  }));
}

/** The epicentre area (震央地名) nearest to a point, and whether it names the sea. */
export function epicentreArea(
  latitude: number,
  longitude: number,
): { code: string; name: string; sea: boolean } {
  let best = EPICENTRES[0]!;
  let bestKm = Infinity;
  for (const e of EPICENTRES) {
    const km = epicentralDistanceKm(latitude, longitude, e[2], e[3]);
    if (km < bestKm) [best, bestKm] = [e, km];
  }
  return { code: best[0], name: best[1], sea: /沖|近海|灘|湾|水道|海峡|付近$/.test(best[1]) };
}

/** Tsunami forecast areas (津波予報区) with their distance from the epicentre, nearest first. */
export function tsunamiAreasByDistance(source: Source): { code: string; name: string; distanceKm: number }[] {
  return TSUNAMI_AREAS.map(([code, name, lat, lon]) => ({
    code,
    name,
    distanceKm: epicentralDistanceKm(source.latitude, source.longitude, lat, lon),
  })).sort((a, b) => a.distanceKm - b.distanceKm);
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}
