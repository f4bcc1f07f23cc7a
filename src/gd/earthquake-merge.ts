import type { Components } from '@dmdata/telegram-json-types';
import type { EarthquakeEventSummary, EarthquakeReportInput, IntensityClass } from './types.ts';

/** Data types merged into earthquake events (docs/gd.md). */
export const EARTHQUAKE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'VXSE51',
  'VXSE52',
  'VXSE53',
  'VXSE61',
  'VXSE62',
]);

const DISTANT_TITLE = '遠地地震に関する情報';

/** What the merge needs of one report (a row of gd_earthquake_reports). */
export interface EarthquakeReport {
  serial: number;
  type: string;
  title: string;
  canceled: boolean;
  reportTime: number;
  pressTime: number;
  serialNo: number | null;
  targetTime: string;
  earthquake: Components.Earthquake | null;
  maxInt: string | null;
  maxLgInt: string | null;
  lgCategory: string | null;
}

interface BodyView {
  earthquake?: Components.Earthquake;
  intensity?: { maxInt?: string; maxLgInt?: string; lgCategory?: string };
}

/** Whether a converted document enters the earthquake events (not a test, merged type, an EventID). */
export function entersEarthquakeEvents(input: Omit<EarthquakeReportInput, 'telegram'>): boolean {
  const { document: doc, type } = input;
  return !input.test && doc.status === '通常' && EARTHQUAKE_EVENT_TYPES.has(type) && Boolean(doc.eventId);
}

/**
 * The report a converted document contributes, with its event id; null when it never enters the
 * projection (test telegram, a data type that is not merged, no EventID).
 */
export function earthquakeReportOf(
  input: EarthquakeReportInput,
): { eventId: string; report: EarthquakeReport } | null {
  if (!entersEarthquakeEvents(input)) return null;
  const { document: doc, type } = input;
  const canceled = doc.infoType === '取消';
  const body = (canceled ? {} : doc.body) as BodyView;
  const serialNo = doc.serialNo !== null && /^\d{1,9}$/.test(doc.serialNo) ? Number(doc.serialNo) : null;
  return {
    eventId: doc.eventId,
    report: {
      serial: input.telegram.serial,
      type,
      title: doc.title,
      canceled,
      reportTime: Date.parse(doc.reportDateTime),
      pressTime: Date.parse(doc.pressDateTime),
      serialNo,
      targetTime: doc.targetDateTime,
      earthquake: body.earthquake ?? null,
      maxInt: body.intensity?.maxInt ?? null,
      maxLgInt: type === 'VXSE62' ? (body.intensity?.maxLgInt ?? null) : null,
      lgCategory: type === 'VXSE62' ? (body.intensity?.lgCategory ?? null) : null,
    },
  };
}

/** The reports' own order: reportDateTime, then pressDateTime, Head/Serial, reception serial. */
export function compareReports(a: EarthquakeReport, b: EarthquakeReport): number {
  return (
    a.reportTime - b.reportTime ||
    a.pressTime - b.pressTime ||
    (a.serialNo ?? 0) - (b.serialNo ?? 0) ||
    a.serial - b.serial
  );
}

/**
 * The reports still valid: walking in report order, a 取消 withdraws the newest valid report of its
 * data type that precedes it (and is itself never valid). Oldest first.
 */
export function validReports(reports: readonly EarthquakeReport[]): EarthquakeReport[] {
  const byType = new Map<string, EarthquakeReport[]>();
  for (const r of [...reports].sort(compareReports)) {
    const stack = byType.get(r.type) ?? [];
    byType.set(r.type, stack);
    if (r.canceled) stack.pop();
    else stack.push(r);
  }
  return [...byType.values()].flat().sort(compareReports);
}

const INTENSITY_ORDER: readonly IntensityClass[] = ['1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'];

/** 1 … 9 for intensity 1 … 7 (the maxInt filter's order); null for anything else. */
export function intensityRank(maxInt: string | null): number | null {
  const i = INTENSITY_ORDER.indexOf(maxInt as IntensityClass);
  return i < 0 ? null : i + 1;
}

/**
 * The event summary (without `id`) from all its stored reports, or null when nothing valid is left.
 * Each element comes from the newest valid report that carries it (docs/gd.md):
 * hypocentre and magnitude from VXSE52/53/61, else VXSE62; origin and arrival time from VXSE52/53,
 * else VXSE61/62, else (intensity flash only) the VXSE51 target time; maxInt from VXSE53, else
 * VXSE51, else VXSE62; maxLgInt and lgCategory from VXSE62.
 */
export function mergeEarthquakeEvent(
  eventId: string,
  reports: readonly EarthquakeReport[],
): Omit<EarthquakeEventSummary, 'id'> | null {
  const valid = validReports(reports);
  const newest = (types: readonly string[], has: (r: EarthquakeReport) => boolean = () => true) =>
    valid.findLast((r) => types.includes(r.type) && has(r));
  const withEarthquake = (r: EarthquakeReport) => r.earthquake !== null;

  const hypo = newest(['VXSE52', 'VXSE53', 'VXSE61'], withEarthquake) ?? newest(['VXSE62'], withEarthquake);
  const times = newest(['VXSE52', 'VXSE53'], withEarthquake) ?? newest(['VXSE61', 'VXSE62'], withEarthquake);
  const flash = newest(['VXSE51']);
  const arrivalTime = times?.earthquake?.arrivalTime ?? flash?.targetTime;
  if (arrivalTime === undefined) return null;

  const intensity = newest(['VXSE53']) ?? flash ?? newest(['VXSE62'], (r) => r.maxInt !== null);
  const longPeriod = newest(['VXSE62'], (r) => r.maxLgInt !== null);
  return {
    type: valid.some((r) => r.title === DISTANT_TITLE) ? 'distant' : 'normal',
    eventId,
    ...(times ? { originTime: times.earthquake!.originTime } : {}),
    arrivalTime,
    ...(hypo ? { hypocenter: hypo.earthquake!.hypocenter, magnitude: hypo.earthquake!.magnitude } : {}),
    maxInt: intensityRank(intensity?.maxInt ?? null) === null ? null : (intensity!.maxInt as IntensityClass),
    ...(longPeriod
      ? {
          maxLgInt: longPeriod.maxLgInt!,
          ...(longPeriod.lgCategory ? { lgCategory: longPeriod.lgCategory } : {}),
        }
      : {}),
  };
}

/** The Japan-time (UTC+09:00) calendar date of an ISO 8601 time, `yyyy-MM-dd`. */
export function japanDate(iso: string): string {
  return new Date(Date.parse(iso) + 9 * 3_600_000).toISOString().slice(0, 10);
}
