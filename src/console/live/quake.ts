import type { Queryable } from '../../db/types.ts';
import { earthquakeEvent, listEarthquakeEvents } from '../../gd/earthquake-store.ts';
import type { EarthquakeEventSummary } from '../../gd/types.ts';
import { loadSummaries, loadTelegram } from '../../telegrams/store.ts';
import type { TelegramSummary } from '../../telegrams/store.ts';
import { conversionDocument } from './documents.ts';
import { project, onMap, type MapPoint } from './map.ts';

/** One area's maximum intensity, as the newest report of the event lists it. */
export interface AreaIntensity {
  code: string;
  name: string;
  maxInt: string;
}

/** One station of the newest intensity report, placed on the map where its position is known. */
export interface StationIntensity {
  code: string;
  name: string;
  /** JMA's intensity class, or `!5-` (5-lower or above, not yet reported). */
  int: string;
  point: MapPoint | null;
}

/** Where a station stands, by its XML code (the parameter API's list, src/parameter/lists.ts). */
export type StationPositions = (code: string) => { latitude: number; longitude: number } | undefined;

/** An earthquake event as the console shows it: the gd projection and the newest area list. */
export interface QuakeView {
  event: EarthquakeEventSummary;
  latitude: number | null;
  longitude: number | null;
  /** Where the epicentre is drawn on the map, when it lies on it. */
  point: MapPoint | null;
  /** Prefectures and regions with their maximum intensity (empty before the intensity reports). */
  prefectures: AreaIntensity[];
  regions: AreaIntensity[];
  /** The stations of the newest report that lists them, in its order. */
  stations: StationIntensity[];
  telegrams: TelegramSummary[];
}

const coordinate = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
};

function areas(value: unknown): AreaIntensity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((a: unknown) => {
    const { code, name, maxInt } = (a ?? {}) as Record<string, unknown>;
    return typeof code === 'string' && typeof name === 'string' && typeof maxInt === 'string'
      ? [{ code, name, maxInt }]
      : [];
  });
}

function stationsOf(value: unknown, positions: StationPositions): StationIntensity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((s: unknown) => {
    const { code, name, int } = (s ?? {}) as Record<string, unknown>;
    if (typeof code !== 'string' || typeof name !== 'string' || typeof int !== 'string') return [];
    const at = positions(code);
    const point = at ? project(at.latitude, at.longitude) : null;
    return [{ code, name, int, point: point && onMap(point) ? point : null }];
  });
}

/** Telegrams of an event read (newest first) when looking for its area intensities. */
const AREA_SEARCH_LIMIT = 20;

/** The earthquake event with this JMA EventID (docs/gd.md), or null when it is not listed. */
export async function loadQuake(
  q: Queryable,
  eventId: string,
  positions: StationPositions,
): Promise<QuakeView | null> {
  const found = await earthquakeEvent(q, eventId);
  if (!found) return null;
  const { event, telegramSerials } = found;
  const latitude = coordinate(event.hypocenter?.coordinate?.latitude?.value);
  const longitude = coordinate(event.hypocenter?.coordinate?.longitude?.value);
  const point = latitude !== null && longitude !== null ? project(latitude, longitude) : null;
  let prefectures: AreaIntensity[] = [];
  let regions: AreaIntensity[] = [];
  let stations: StationIntensity[] = [];
  for (const serial of [...telegramSerials].reverse().slice(0, AREA_SEARCH_LIMIT)) {
    const record = await loadTelegram(q, serial);
    const intensity =
      record && (conversionDocument(record)?.body as Record<string, unknown> | undefined)?.intensity;
    if (intensity && typeof intensity === 'object' && 'regions' in intensity) {
      prefectures = areas((intensity as Record<string, unknown>).prefectures);
      regions = areas((intensity as Record<string, unknown>).regions);
      stations = stationsOf((intensity as Record<string, unknown>).stations, positions);
      break;
    }
  }
  return {
    event,
    latitude,
    longitude,
    point: point && onMap(point) ? point : null,
    prefectures,
    regions,
    stations,
    telegrams: await loadSummaries(q, telegramSerials),
  };
}

/** The newest listed earthquake event's EventID, if any. */
export async function newestQuakeId(q: Queryable): Promise<string | null> {
  const { items } = await listEarthquakeEvents(q, { limit: 1 });
  return items[0]?.eventId ?? null;
}
