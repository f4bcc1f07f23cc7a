import type { EewInformation } from '@dmdata/telegram-json-types';
import type { Queryable, SqlParam, StatementAfter } from '../db/types.ts';
import type { EewRecord, EewReportInput, ListPage } from './types.ts';

/** Early-warning data types kept (docs/gd.md): 警報, 予報, 地震動予報. */
export const EEW_TYPES: ReadonlySet<string> = new Set(['VXSE43', 'VXSE44', 'VXSE45']);

/**
 * Which report of a serial number stands for the event when several data types carry it: the
 * 地震動予報 (VXSE45) holds everything the 予報 (VXSE44) does; the 警報 (VXSE43) is final only as
 * a cancellation.
 */
const TYPE_PREFERENCE = `CASE type WHEN 'VXSE45' THEN 3 WHEN 'VXSE44' THEN 2 ELSE 1 END`;

/** The early-warning record of one report (without `id`), with its presence rules (docs/gd.md). */
export function eewRecordOf(doc: EewInformation.v1_0_0.Main): Omit<EewRecord, 'id'> {
  const body = doc.body as Partial<Omit<EewInformation.v1_0_0.PublicCommonBody, 'isCanceled'>> & {
    isCanceled?: boolean;
  };
  const canceled = doc.infoType === '取消' || body.isCanceled === true;
  return {
    eventId: doc.eventId,
    serial: Number(doc.serialNo),
    dateTime: doc.reportDateTime,
    isLastInfo: body.isLastInfo === true,
    isCanceled: canceled,
    ...(!canceled && body.isWarning !== undefined ? { isWarning: body.isWarning } : {}),
    ...(!canceled && body.earthquake ? { earthquake: body.earthquake } : {}),
    ...(!canceled && body.intensity ? { intensity: body.intensity } : {}),
    ...(body.text !== undefined ? { text: body.text } : {}),
  };
}

/** Whether a converted document enters the early warnings (not a test, a kept type, EventID, serial). */
export function entersEewRecords(input: Omit<EewReportInput, 'telegram'>): boolean {
  const { document: doc, type } = input;
  if (input.test || doc.status !== '通常' || !EEW_TYPES.has(type)) return false;
  return Boolean(doc.eventId) && doc.serialNo !== null && /^\d{1,9}$/.test(doc.serialNo);
}

/**
 * Records one converted VXSE43/44/45 document (ingest, in its transaction) and recomputes its
 * event's record: the final report (isLastInfo) with the highest serial number, VXSE45 before
 * VXSE44 before VXSE43 on the same number, then the later reception. Test telegrams and other data
 * types are ignored; recording the same telegram again changes nothing. Returns the EventID, or
 * null when the document does not enter the projection.
 */
export async function recordEewReport(q: Queryable, input: EewReportInput): Promise<string | null> {
  if (!entersEewRecords(input)) return null;
  const { document: doc } = input;
  const record = eewRecordOf(doc);
  const { serial, id } = input.telegram;
  const inserted = await q.query(
    `INSERT INTO gd_eew_reports (${REPORT_COLUMNS}) VALUES ($1, $2, ${reportValues(3)})
     ON CONFLICT DO NOTHING RETURNING serial`,
    [serial, id, ...reportParams({ ...input, receivedTime: input.telegram.receivedTime }, record)],
  );
  // Only a new final report can change which report stands for the event (most reports are not
  // final, so most recordings are this one plain insert).
  if (inserted.length > 0 && record.isLastInfo) {
    await q.query(
      `INSERT INTO gd_eew_events (event_id, report_serial, received_time)
       SELECT event_id, serial, received_time FROM gd_eew_reports WHERE event_id = $1 AND is_last_info
       ORDER BY serial_no DESC, ${TYPE_PREFERENCE} DESC, serial DESC LIMIT 1
       ON CONFLICT (event_id) DO UPDATE SET report_serial = excluded.report_serial,
         received_time = excluded.received_time`,
      [doc.eventId],
    );
  }
  return doc.eventId;
}

const REPORT_COLUMNS = 'serial, telegram_id, event_id, type, serial_no, is_last_info, received_time, record';
/** The placeholders of a report's values after serial and telegram_id, from `$first` on. */
const reportValues = (first: number) =>
  `$${first}, $${first + 1}, $${first + 2}, $${first + 3}, $${first + 4}, $${first + 5}::json`;
/** A report to record: the converted document, and when its telegram was received (ISO 8601). */
type ReportSource = Omit<EewReportInput, 'telegram'> & { receivedTime: string };
const reportParams = (input: ReportSource, record: Omit<EewRecord, 'id'>): SqlParam[] => [
  input.document.eventId,
  input.type,
  record.serial,
  record.isLastInfo,
  new Date(input.receivedTime),
  JSON.stringify(record),
];

/**
 * Recording this document as one statement that runs after the statement storing its telegram,
 * where that is all recordEewReport would do: a report that enters the early warnings and is not
 * final (most are) is one plain insert, and ingest stores it with the telegram in one round trip.
 * `from` names a row source with the stored conversion's `serial` and `id`; the statement's
 * parameters start at `$first`. Null for a document that enters nothing or is a final report.
 */
export function eewReportAfterStore(input: ReportSource): StatementAfter | null {
  if (!entersEewRecords(input)) return null;
  const record = eewRecordOf(input.document);
  if (record.isLastInfo) return null;
  return (from, first) => ({
    sql: `INSERT INTO gd_eew_reports (${REPORT_COLUMNS})
       SELECT serial, id, ${reportValues(first)} FROM ${from} ON CONFLICT DO NOTHING`,
    params: reportParams(input, record),
  });
}

export interface EewListQuery {
  /** Reception time of the final report at or after. */
  datetimeFrom?: Date;
  /** Reception time of the final report before (exclusive). */
  datetimeTo?: Date;
  limit: number;
  /** A `nextToken` position: records with `id` below it. */
  cursor?: { position: number };
}

interface RecordRow {
  serial: number;
  record: string;
}

const recordOfRow = (r: RecordRow): EewRecord => ({
  id: r.serial,
  ...(JSON.parse(r.record) as Omit<EewRecord, 'id'>),
});

/** One record per early-warning event whose final report is stored, newest first by `id`. */
export async function listEewRecords(q: Queryable, f: EewListQuery): Promise<ListPage<EewRecord>> {
  const where = ['true'];
  const params: SqlParam[] = [];
  const p = (v: SqlParam) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.datetimeFrom) where.push(`e.received_time >= ${p(f.datetimeFrom)}`);
  if (f.datetimeTo) where.push(`e.received_time < ${p(f.datetimeTo)}`);
  if (f.cursor) where.push(`e.report_serial < ${p(f.cursor.position)}`);
  const rows = await q.query<RecordRow>(
    `SELECT r.serial, r.record::text AS record FROM gd_eew_events e JOIN gd_eew_reports r ON r.serial = e.report_serial
     WHERE ${where.join(' AND ')} ORDER BY e.report_serial DESC LIMIT ${p(f.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, f.limit);
  return {
    items: page.map(recordOfRow),
    ...(rows.length > f.limit ? { nextToken: page.at(-1)!.serial } : {}),
  };
}

/**
 * Every stored report of an early-warning event, newest reception first (final or not), or null
 * when none is stored. Each record's `id` is its JSON telegram's serial (the API renders that
 * telegram as the record's `telegrams[]`).
 */
export async function eewEvent(q: Queryable, eventId: string): Promise<EewRecord[] | null> {
  const rows = await q.query<RecordRow>(
    'SELECT serial, record::text AS record FROM gd_eew_reports WHERE event_id = $1 ORDER BY serial DESC',
    [eventId],
  );
  return rows.length > 0 ? rows.map(recordOfRow) : null;
}
