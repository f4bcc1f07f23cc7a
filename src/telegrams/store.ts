import type { Queryable, SqlParam } from '../db/types.ts';
import type { PreparedTelegram } from './prepare.ts';
import type { TelegramFormat, TelegramHead, TelegramRecord, XmlReport } from './record.ts';

/** Everything of a telegram but its body: what lists show. */
export type TelegramSummary = Omit<TelegramRecord, 'body'>;

// Serialises ingest commits across processes so serials become visible in increasing order.
const INGEST_LOCK_KEY = 7_262_420_040;

const SUMMARY_COLUMNS = `serial, id, classification, type, author, target, head_time, designation, test, format,
  received_time, xml_report, compression, encoding`;

interface Row {
  serial: number;
  id: string;
  classification: string;
  type: string;
  author: string;
  target: string | null;
  head_time: Date;
  designation: string | null;
  test: boolean;
  format: TelegramFormat;
  received_time: Date;
  xml_report: XmlReport | null;
  compression: 'gzip' | null;
  encoding: 'base64' | 'utf-8';
  body?: Buffer;
}

function toSummary(r: Row): TelegramSummary {
  const head: TelegramHead = {
    type: r.type,
    author: r.author,
    ...(r.target !== null ? { target: r.target } : {}),
    time: r.head_time.toISOString(),
    designation: r.designation,
    test: r.test,
    xml: r.format === 'xml',
  };
  return {
    serial: r.serial,
    id: r.id,
    classification: r.classification,
    head,
    receivedTime: r.received_time.toISOString(),
    format: r.format,
    xmlReport: r.xml_report,
    compression: r.compression,
    encoding: r.encoding,
  };
}

export interface StoredTelegram {
  serial: number;
  id: string;
  classification: string;
  duplicate: boolean;
}

/**
 * Stores a prepared telegram inside the caller's transaction, unless the same raw bytes (or the
 * same delivered body) are stored already: then the existing one is returned as a duplicate.
 */
export async function storeTelegram(q: Queryable, t: PreparedTelegram): Promise<StoredTelegram> {
  await q.query('SELECT pg_advisory_xact_lock($1)', [INGEST_LOCK_KEY]);
  const existing = await q.query<{ serial: number; id: string; classification: string }>(
    'SELECT serial, id, classification FROM telegrams WHERE raw_digest = $1 OR id = $2 LIMIT 1',
    [t.rawDigest, t.id],
  );
  if (existing[0]) return { ...existing[0], duplicate: true };
  const rows = await q.query<{ serial: number }>(
    `INSERT INTO telegrams (id, raw_digest, classification, type, author, target, head_time, designation, test,
       format, received_time, xml_report, compression, encoding, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING serial`,
    [
      t.id,
      t.rawDigest,
      t.classification,
      t.head.type,
      t.head.author,
      t.head.target ?? null,
      new Date(t.head.time),
      t.head.designation,
      t.head.test,
      t.format,
      new Date(t.receivedTime),
      t.xmlReport === null ? null : JSON.stringify(t.xmlReport),
      t.compression,
      t.encoding,
      t.body,
    ],
  );
  return { serial: rows[0]!.serial, id: t.id, classification: t.classification, duplicate: false };
}

/** The full telegram with this serial (the real-time delivery reads it after the bus announces it). */
export async function loadTelegram(q: Queryable, serial: number): Promise<TelegramRecord | null> {
  const rows = await q.query<Row>(`SELECT ${SUMMARY_COLUMNS}, body FROM telegrams WHERE serial = $1`, [
    serial,
  ]);
  return rows[0] ? { ...toSummary(rows[0]), body: rows[0].body! } : null;
}

/** Full telegrams with serials above `after`, oldest first (at most `limit`). */
export async function loadTelegramsAfter(
  q: Queryable,
  after: number,
  limit: number,
): Promise<TelegramRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, body FROM telegrams WHERE serial > $1 ORDER BY serial LIMIT $2`,
    [after, limit],
  );
  return rows.map((r) => ({ ...toSummary(r), body: r.body! }));
}

/** The newest full telegrams, newest first. */
export async function loadNewestTelegrams(q: Queryable, limit: number): Promise<TelegramRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, body FROM telegrams ORDER BY serial DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ ...toSummary(r), body: r.body! }));
}

export interface StoredBody {
  classification: string;
  format: TelegramFormat;
  compression: 'gzip' | null;
  body: Buffer;
}

export async function loadBody(q: Queryable, id: string): Promise<StoredBody | null> {
  const rows = await q.query<StoredBody>(
    'SELECT classification, format, compression, body FROM telegrams WHERE id = $1',
    [id],
  );
  return rows[0] ?? null;
}

export async function newestSerial(q: Queryable): Promise<number> {
  const rows = await q.query<{ max: number | null }>('SELECT max(serial) AS max FROM telegrams');
  return rows[0]?.max ?? 0;
}

/** A list query: which telegrams, in which serial window, how many. */
export interface TelegramQuery {
  classifications: readonly string[];
  /** Exact codes (several) or one prefix. */
  types?: { exact: readonly string[] } | { prefix: string };
  test: 'no' | 'including' | 'only';
  formats?: readonly TelegramFormat[];
  receivedFrom?: Date;
  receivedBefore?: Date;
  /** Only serials below (older page). */
  before?: number;
  /** Only serials above (polling); the lowest ones above are taken first. */
  after?: number;
  limit: number;
  /** Whether the caller shows Control/Head; when false the database need not send them. */
  withXmlReport?: boolean;
}

/** True when a telegram summary passes a query's filters (not its serial window). */
export function matches(t: TelegramSummary, f: TelegramQuery): boolean {
  if (!f.classifications.includes(t.classification)) return false;
  if (f.types) {
    if ('exact' in f.types ? !f.types.exact.includes(t.head.type) : !t.head.type.startsWith(f.types.prefix))
      return false;
  }
  if (f.test === 'no' ? t.head.test : f.test === 'only' ? !t.head.test : false) return false;
  if (f.formats && !f.formats.includes(t.format)) return false;
  if (f.receivedFrom || f.receivedBefore) {
    const received = Date.parse(t.receivedTime);
    if (f.receivedFrom && received < f.receivedFrom.getTime()) return false;
    if (f.receivedBefore && received >= f.receivedBefore.getTime()) return false;
  }
  return true;
}

/** Telegrams matching a query, newest first (at most limit, from the database). */
export async function queryTelegrams(q: Queryable, f: TelegramQuery): Promise<TelegramSummary[]> {
  const where: string[] = [];
  const params: SqlParam[] = [];
  const p = (v: SqlParam) => {
    params.push(v);
    return `$${params.length}`;
  };
  where.push(`classification = ANY(${p(f.classifications as string[])}::text[])`);
  if (f.types) {
    if ('exact' in f.types) where.push(`type = ANY(${p(f.types.exact as string[])}::text[])`);
    else where.push(`type LIKE ${p(f.types.prefix.replace(/[\\%_]/g, '\\$&') + '%')}`);
  }
  if (f.test === 'no') where.push('NOT test');
  if (f.test === 'only') where.push('test');
  if (f.formats) where.push(`format = ANY(${p(f.formats as string[])}::text[])`);
  if (f.receivedFrom) where.push(`received_time >= ${p(f.receivedFrom)}`);
  if (f.receivedBefore) where.push(`received_time < ${p(f.receivedBefore)}`);
  if (f.before !== undefined) where.push(`serial < ${p(f.before)}`);
  if (f.after !== undefined) where.push(`serial > ${p(f.after)}`);
  const order = f.after !== undefined ? 'ASC' : 'DESC';
  const columns =
    f.withXmlReport === false ? SUMMARY_COLUMNS.replace('xml_report', 'NULL AS xml_report') : SUMMARY_COLUMNS;
  const rows = await q.query<Row>(
    `SELECT ${columns} FROM telegrams WHERE ${where.join(' AND ')} ORDER BY serial ${order} LIMIT ${p(f.limit)}`,
    params,
  );
  const out = rows.map(toSummary);
  return f.after !== undefined ? out.reverse() : out;
}
