import { NOT_RECEIVED_INT } from '../../conversion/intensity-observation.ts';
import type { Queryable } from '../../db/types.ts';
import { earthquakeEvent, listEarthquakeEvents } from '../../gd/earthquake-store.ts';
import {
  EARTHQUAKE_EVENT_TYPES,
  earthquakeReportOf,
  mergeEarthquakeEvent,
} from '../../gd/earthquake-merge.ts';
import type { EarthquakeDocument, EarthquakeEventSummary } from '../../gd/types.ts';
import type { TelegramRecord } from '../../telegrams/record.ts';
import {
  loadEventConversions,
  loadSummaries,
  loadTelegram,
  queryTelegrams,
  type TelegramSummary,
} from '../../telegrams/store.ts';
import { conversionDocument } from './documents.ts';
import { project, onMap, type MapPoint } from './map.ts';

/** One area's maximum intensity, as the newest report of the event lists it. */
export interface AreaIntensity {
  code: string;
  name: string;
  /** JMA's intensity class, or `!5-` (none came in: 5-lower or above, not yet reported). */
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
  /** A training (訓練) event, drawn from its telegrams (loadTrainingQuake), not from the projection. */
  training: boolean;
}

const coordinate = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * The areas with their maximum intensity. An area without one is listed in the report only for
 * stations whose 5弱 or above has not come in (JMA's Condition 震度５弱以上未入電, which the
 * conversion leaves out with its MaxInt): it reads `!5-`, as such a station does.
 */
function areas(value: unknown): AreaIntensity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((a: unknown) => {
    const { code, name, maxInt } = (a ?? {}) as Record<string, unknown>;
    if (typeof code !== 'string' || typeof name !== 'string') return [];
    return [{ code, name, maxInt: typeof maxInt === 'string' ? maxInt : NOT_RECEIVED_INT }];
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

type Intensities = Pick<QuakeView, 'prefectures' | 'regions' | 'stations'>;

/** The areas and stations of a report's conversion; null when it lists none (not an intensity report). */
function intensitiesOf(record: TelegramRecord, positions: StationPositions): Intensities | null {
  const intensity = (conversionDocument(record)?.body as Record<string, unknown> | undefined)?.intensity;
  if (!intensity || typeof intensity !== 'object' || !('regions' in intensity)) return null;
  const lists = intensity as Record<string, unknown>;
  return {
    prefectures: areas(lists.prefectures),
    regions: areas(lists.regions),
    stations: stationsOf(lists.stations, positions),
  };
}

/** The view of an event's summary, with the intensities of the first of `newestFirst` that lists them. */
async function viewOf(
  event: EarthquakeEventSummary,
  newestFirst: AsyncIterable<TelegramRecord> | Iterable<TelegramRecord>,
  positions: StationPositions,
): Promise<Omit<QuakeView, 'telegrams' | 'training'>> {
  const latitude = coordinate(event.hypocenter?.coordinate?.latitude?.value);
  const longitude = coordinate(event.hypocenter?.coordinate?.longitude?.value);
  const point = latitude !== null && longitude !== null ? project(latitude, longitude) : null;
  let found: Intensities | null = null;
  for await (const record of newestFirst) {
    found = intensitiesOf(record, positions);
    if (found) break;
  }
  return {
    event,
    latitude,
    longitude,
    point: point && onMap(point) ? point : null,
    ...(found ?? { prefectures: [], regions: [], stations: [] }),
  };
}

/** The earthquake event with this JMA EventID (docs/gd.md), or null when it is not listed. */
export async function loadQuake(
  q: Queryable,
  eventId: string,
  positions: StationPositions,
): Promise<QuakeView | null> {
  const found = await earthquakeEvent(q, eventId);
  if (!found) return null;
  const { event, telegramSerials } = found;
  async function* newestFirst() {
    for (const serial of [...telegramSerials].reverse().slice(0, AREA_SEARCH_LIMIT)) {
      const record = await loadTelegram(q, serial);
      if (record) yield record;
    }
  }
  return {
    ...(await viewOf(event, newestFirst(), positions)),
    telegrams: await loadSummaries(q, telegramSerials),
    training: false,
  };
}

/** Conversions of a training event read: a scenario sends a few dozen at most. */
const TRAINING_TELEGRAMS = 100;

/**
 * A training (訓練) earthquake event drawn from its stored conversions: the projection's own merge
 * over them, read as the real reports they rehearse. The projection and the data API never hold
 * it (docs/console-live.md "Training"); null when no conversion of the event makes an event.
 */
export async function loadTrainingQuake(
  q: Queryable,
  eventId: string,
  positions: StationPositions,
): Promise<QuakeView | null> {
  const records = await loadEventConversions(q, `earthquake:${eventId}`, true, TRAINING_TELEGRAMS);
  const reports = records.flatMap((r) => {
    const doc = conversionDocument(r) as EarthquakeDocument | null;
    if (doc?.status !== '訓練') return [];
    const entry = earthquakeReportOf({
      type: r.head.type,
      document: { ...doc, status: '通常' },
      telegram: { serial: r.serial, id: r.id, receivedTime: r.receivedTime },
      test: false,
    });
    return entry?.eventId === eventId ? [entry.report] : [];
  });
  const summary = mergeEarthquakeEvent(eventId, reports);
  if (!summary) return null;
  const event: EarthquakeEventSummary = { id: Math.min(...reports.map((r) => r.serial)), ...summary };
  return {
    ...(await viewOf(event, records, positions)),
    telegrams: records.filter((r) => reports.some((p) => p.serial === r.serial)).reverse(),
    training: true,
  };
}

/**
 * The newest earthquake event the live view shows: the newest listed one of the projection, or a
 * training event whose report came after every change of the projection (a scenario moves the map
 * as a real earthquake does, marked as training).
 */
export async function newestQuake(q: Queryable, positions: StationPositions): Promise<QuakeView | null> {
  const { items, nextPooling } = await listEarthquakeEvents(q, { limit: 1 });
  const [training] = await queryTelegrams(q, {
    classifications: ['telegram.earthquake'],
    types: { exact: [...EARTHQUAKE_EVENT_TYPES] },
    test: 'only',
    formats: ['json'],
    limit: 1,
    withXmlReport: false,
  });
  const trainingEvent =
    training && training.serial > nextPooling
      ? training.facts?.event?.replace(/^earthquake:/, '')
      : undefined;
  if (trainingEvent) {
    const view = await loadTrainingQuake(q, trainingEvent, positions);
    if (view) return view;
  }
  return items[0] ? loadQuake(q, items[0].eventId, positions) : null;
}
