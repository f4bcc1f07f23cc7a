import type { Components } from '@dmdata/telegram-json-types';
import type { Queryable, SqlParam } from '../db/types.ts';
import {
  earthquakeReportOf,
  type EarthquakeReport,
  intensityRank,
  japanDate,
  mergeEarthquakeEvent,
} from './earthquake-merge.ts';
import type { EarthquakeEventSummary, EarthquakeReportInput, IntensityClass, ListPage } from './types.ts';

interface ReportRow {
  serial: number;
  type: string;
  title: string;
  canceled: boolean;
  report_time: Date;
  press_time: Date;
  serial_no: number | null;
  target_time: string;
  earthquake: string | null;
  max_int: string | null;
  max_lg_int: string | null;
  lg_category: string | null;
}

const reportOfRow = (r: ReportRow): EarthquakeReport => ({
  serial: r.serial,
  type: r.type,
  title: r.title,
  canceled: r.canceled,
  reportTime: r.report_time.getTime(),
  pressTime: r.press_time.getTime(),
  serialNo: r.serial_no,
  targetTime: r.target_time,
  earthquake: r.earthquake === null ? null : (JSON.parse(r.earthquake) as Components.Earthquake),
  maxInt: r.max_int,
  maxLgInt: r.max_lg_int,
  lgCategory: r.lg_category,
});

const REPORT_COLUMNS = `serial, type, title, canceled, report_time, press_time, serial_no, target_time,
  earthquake::text AS earthquake, max_int, max_lg_int, lg_category`;

/**
 * Records one converted VXSE51/52/53/61/62 document (called by ingest in its transaction, after the
 * JSON telegram is stored) and recomputes its event from all the event's stored reports. Test
 * telegrams and other data types are ignored. Recording the same telegram again changes nothing.
 * Returns the EventID recomputed, or null when the document does not enter the projection.
 *
 * Three plain statements: the report inserted, the event's reports read, the event row written.
 * Ingest runs them under its lock, after the statement that took it, so no other recording of the
 * event can commit in between (docs/gd.md "Recording").
 */
export async function recordEarthquakeReport(
  q: Queryable,
  input: EarthquakeReportInput,
): Promise<string | null> {
  const entry = earthquakeReportOf(input);
  if (!entry) return null;
  const { eventId, report: r } = entry;
  await q.query(
    `INSERT INTO gd_earthquake_reports (serial, telegram_id, event_id, type, title, canceled, report_time,
       press_time, serial_no, target_time, earthquake, max_int, max_lg_int, lg_category)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::json, $12, $13, $14)
     ON CONFLICT DO NOTHING`,
    [
      r.serial,
      input.telegram.id,
      eventId,
      r.type,
      r.title,
      r.canceled,
      new Date(r.reportTime),
      new Date(r.pressTime),
      r.serialNo,
      r.targetTime,
      r.earthquake === null ? null : JSON.stringify(r.earthquake),
      r.maxInt,
      r.maxLgInt,
      r.lgCategory,
    ],
  );
  const rows = await q.query<ReportRow>(
    `SELECT ${REPORT_COLUMNS} FROM gd_earthquake_reports WHERE event_id = $1`,
    [eventId],
  );
  await writeEarthquakeEvent(q, eventId, rows.map(reportOfRow));
  return eventId;
}

/** Writes the event row computed from all its reports (created when the event is new). */
async function writeEarthquakeEvent(
  q: Queryable,
  eventId: string,
  reports: EarthquakeReport[],
): Promise<void> {
  const serials = reports.map((r) => r.serial);
  const summary = mergeEarthquakeEvent(eventId, reports);
  await q.query(
    `INSERT INTO gd_earthquake_events (event_id, id, updated_serial, listed, hypocenter_code, max_int_rank,
       arrival_date, summary)
     VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8::json)
     ON CONFLICT (event_id) DO UPDATE SET id = excluded.id, updated_serial = excluded.updated_serial,
       listed = excluded.listed, hypocenter_code = excluded.hypocenter_code, max_int_rank = excluded.max_int_rank,
       arrival_date = excluded.arrival_date, summary = excluded.summary`,
    [
      eventId,
      Math.min(...serials),
      Math.max(...serials),
      summary !== null,
      summary?.hypocenter?.code ?? null,
      intensityRank(summary?.maxInt ?? null),
      summary ? japanDate(summary.arrivalTime) : null,
      summary ? JSON.stringify(summary) : null,
    ],
  );
}

/** The earthquake list's filters (parsed by the functions of filters.ts) and its window. */
export interface EarthquakeListQuery {
  hypocenter?: string;
  maxInt?: IntensityClass;
  /** `yyyy-MM-dd`, the Japan date of arrivalTime. */
  date?: string;
  limit: number;
  /**
   * `older`: events with `id` below the position (a `nextToken`). `newer`: events changed after the
   * position (a `nextPooling`), the earliest changes first.
   */
  cursor?: { direction: 'older' | 'newer'; position: number };
}

export interface EarthquakeListPage extends ListPage<EarthquakeEventSummary> {
  /** Polling position: everything that changes after this response has a higher one. */
  nextPooling: number;
}

interface EventRow {
  id: number;
  updated_serial: number;
  summary: string;
}

const summaryOfRow = (r: EventRow): EarthquakeEventSummary => ({
  id: r.id,
  ...(JSON.parse(r.summary) as Omit<EarthquakeEventSummary, 'id'>),
});

/**
 * Listed events matching the filters, newest first by `id` (the order in which events first
 * appeared); polling pages hold the events changed after the cursor (docs/gd.md "Cursors").
 */
export async function listEarthquakeEvents(
  q: Queryable,
  f: EarthquakeListQuery,
): Promise<EarthquakeListPage> {
  // Read before the items: whatever changes after this read has a higher serial, so a polling
  // client starting from it misses nothing even if the change commits while the items are read.
  const [top] = await q.query<{ m: number }>(
    'SELECT coalesce(max(updated_serial), 0)::int8 AS m FROM gd_earthquake_events',
  );
  const newest = top!.m;
  const where = ['listed'];
  const params: SqlParam[] = [];
  const p = (v: SqlParam) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.hypocenter !== undefined) where.push(`hypocenter_code = ${p(f.hypocenter)}`);
  if (f.maxInt !== undefined) where.push(`max_int_rank >= ${p(intensityRank(f.maxInt))}`);
  if (f.date !== undefined) where.push(`arrival_date = ${p(f.date)}::date`);
  const polling = f.cursor?.direction === 'newer';
  if (f.cursor?.direction === 'older') where.push(`id < ${p(f.cursor.position)}`);
  if (polling) where.push(`updated_serial > ${p(f.cursor!.position)}`, `updated_serial <= ${p(newest)}`);
  const rows = await q.query<EventRow>(
    `SELECT id, updated_serial, summary::text AS summary FROM gd_earthquake_events WHERE ${where.join(' AND ')}
     ORDER BY ${polling ? 'updated_serial ASC' : 'id DESC'} LIMIT ${p(f.limit + 1)}`,
    params,
  );
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  if (polling) {
    const nextPooling = more ? page.at(-1)!.updated_serial : Math.max(newest, f.cursor!.position);
    return { items: page.reverse().map(summaryOfRow), nextPooling };
  }
  return {
    items: page.map(summaryOfRow),
    ...(more ? { nextToken: page.at(-1)!.id } : {}),
    nextPooling: newest,
  };
}

export interface EarthquakeEventDetail {
  event: EarthquakeEventSummary;
  /** Serials of every JSON telegram of the event (withdrawn and 取消 ones included), oldest first. */
  telegramSerials: number[];
}

/** A listed event and the serials of its telegrams; null when it is unknown or nothing valid is left. */
export async function earthquakeEvent(q: Queryable, eventId: string): Promise<EarthquakeEventDetail | null> {
  const [row] = await q.query<EventRow>(
    'SELECT id, updated_serial, summary::text AS summary FROM gd_earthquake_events WHERE event_id = $1 AND listed',
    [eventId],
  );
  if (!row) return null;
  const serials = await q.query<{ serial: number }>(
    'SELECT serial FROM gd_earthquake_reports WHERE event_id = $1 ORDER BY serial',
    [eventId],
  );
  return { event: summaryOfRow(row), telegramSerials: serials.map((s) => s.serial) };
}
