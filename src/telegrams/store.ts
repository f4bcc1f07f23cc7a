import type { Queryable, SqlParam, SqlStatement, StatementAfter } from '../db/types.ts';
import type { PreparedTelegram } from './prepare.ts';
import type { TelegramFacts } from './facts.ts';
import type { TelegramFormat, TelegramHead, TelegramRecord, XmlReport } from './record.ts';

/** Everything of a telegram but its body: what lists show. */
export type TelegramSummary = Omit<TelegramRecord, 'body'>;

// Serialises ingest commits across processes so serials become visible in increasing order.
const INGEST_LOCK_KEY = 7_262_420_040;

const SUMMARY_COLUMNS = `serial, id, classification, type, author, target, head_time, designation, test, format,
  received_time, xml_report, compression, encoding, original_id, schema_type, schema_version, facts`;

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
  original_id: string | null;
  schema_type: string | null;
  schema_version: string | null;
  facts: TelegramFacts | null;
  body64?: string;
}

/**
 * Bodies are read as base64 text: both drivers would otherwise answer bytea as hex text, which the
 * embedded engine converts several times slower than base64. They are written as bytes (a Buffer
 * parameter goes in the binary format on both engines).
 */
const BODY_COLUMN = `encode(body, 'base64') AS body64`;
const bodyOf = (r: { body64?: string }) => Buffer.from(r.body64!, 'base64');

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
    ...(r.original_id !== null
      ? {
          conversion: {
            schema: { type: r.schema_type!, version: r.schema_version! },
            originalId: r.original_id,
          },
        }
      : {}),
    ...(r.facts !== null ? { facts: r.facts } : {}),
  };
}

/**
 * A telegram this process has just committed, as the database would give it back (loadTelegram): the
 * same row through the same mapping, Control/Head in the key order `jsonb` stores it in, so that
 * the cache can hold it without reading it (cache.ts) and every response stays byte for byte the
 * same. The body is copied when it is the received bytes themselves, which ingest's caller may
 * reuse once ingest has settled.
 */
export function committedRecord(t: PreparedTelegram, serial: number): TelegramRecord {
  const row: Row = {
    serial,
    id: t.id,
    classification: t.classification,
    type: t.head.type,
    author: t.head.author,
    target: t.head.target ?? null,
    head_time: new Date(t.head.time),
    designation: t.head.designation ?? null,
    test: t.head.test,
    format: t.format,
    received_time: new Date(t.receivedTime),
    xml_report: t.xmlReport === null ? null : inJsonbKeyOrder(t.xmlReport),
    compression: t.compression,
    encoding: t.encoding,
    original_id: t.conversion?.originalId ?? null,
    schema_type: t.conversion?.schema.type ?? null,
    schema_version: t.conversion?.schema.version ?? null,
    facts: t.facts ?? null,
  };
  return { ...toSummary(row), body: t.compression === 'gzip' ? t.body : Buffer.from(t.body) };
}

/**
 * A JSON value with every object's keys in `jsonb`'s order: shorter keys first, then by their bytes
 * (PostgreSQL's jsonb documentation, "jsonb Containment and Existence" notes the order is not the
 * input's). Control/Head keys are ASCII, where comparing strings is comparing bytes.
 */
function inJsonbKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(inJsonbKeyOrder) as T;
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const ordered: Record<string, unknown> = {};
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    // As JSON.stringify writes it: a property without a value is not stored.
    if (item !== undefined) ordered[key] = inJsonbKeyOrder(item);
  }
  return ordered as T;
}

export interface StoredTelegram {
  serial: number;
  id: string;
  classification: string;
  duplicate: boolean;
}

const INSERT_COLUMNS = `raw_digest, id, classification, type, author, target, head_time, designation, test,
  format, received_time, xml_report, compression, encoding, body, original_id, schema_type, schema_version, facts`;

/** The values of INSERT_COLUMNS for one telegram, from `$first` on (the body as its bytes). */
function insertValues(t: PreparedTelegram, first: number): SqlStatement {
  const params: SqlParam[] = [
    t.rawDigest,
    t.id,
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
    t.conversion?.originalId ?? null,
    t.conversion?.schema.type ?? null,
    t.conversion?.schema.version ?? null,
    t.facts ? JSON.stringify(t.facts) : null,
  ];
  const sql = params.map((_, i) => `$${first + i}`).join(', ');
  return { sql, params };
}

/**
 * Stores a prepared telegram in one statement (its own transaction under autocommit), unless the
 * same raw bytes or the same delivered body are stored already: then the stored one is returned as
 * a duplicate. The advisory lock is taken before the serial is drawn and held to COMMIT, so serials
 * become visible in increasing order. Two processes storing the same telegram at once: the loser
 * gets a unique violation, which ingestTelegram turns into a duplicate.
 */
export async function storeTelegram(
  q: Queryable,
  t: PreparedTelegram,
  options: StoreOptions = {},
): Promise<StoredTelegram> {
  return (await storeTelegramWithConversion(q, t, undefined, options)).stored;
}

/** Where a storing statement announces its rows itself (bus/types.ts `CommitNotices`). */
export interface Announcement {
  channel: string;
  /** What ends the payload: the bus's `CommitNotices.ownSuffix`. */
  suffix: string;
  /**
   * What follows `{"serial":N` in each row's notice, the XML's then its conversion's: the record
   * when it fits (announced-record.ts), else ''.
   */
  fragments: readonly string[];
}

export interface StoreOptions {
  /**
   * Run in the same statement, on the conversion's row (nothing when that row is not written).
   */
  afterConversion?: StatementAfter;
  /**
   * `pg_notify` each stored row's serial on this channel, as `{"serial":N`, the row's record when it
   * fits (announced-record.ts) and the suffix (bus/codecs.ts reads `serial` and `record`), from the
   * statement itself: PostgreSQL sends it when the transaction commits, to every listener, before the
   * caller hears of the commit (no round trip after it). Nothing is sent for a duplicate or a
   * rolled-back transaction.
   */
  announceOn?: Announcement;
}

/**
 * Stores an XML telegram and, when given, its JSON conversion in one statement, with consecutive
 * serials (the conversion's row is drawn from the XML's): both or neither. When the XML is stored
 * already, it is returned as a duplicate and nothing is written. Same lock and duplicate rules as
 * storeTelegram; `options` as described there.
 */
export async function storeTelegramWithConversion(
  q: Queryable,
  xml: PreparedTelegram,
  json?: PreparedTelegram,
  { afterConversion, announceOn }: StoreOptions = {},
): Promise<{ stored: StoredTelegram; converted?: StoredTelegram }> {
  const xmlValues = insertValues(xml, 2);
  const jsonValues = json && insertValues(json, 2 + xmlValues.params.length);
  const next = 2 + xmlValues.params.length + (jsonValues?.params.length ?? 0);
  const after = jsonValues && afterConversion?.('json', next);
  const channelAt = next + (after?.params.length ?? 0);
  // A data-modifying CTE runs to completion whether or not its rows are read: so does its RETURNING.
  const returning = (fragmentAt: number) =>
    `RETURNING serial, id, classification${
      announceOn === undefined
        ? ''
        : `, pg_notify($${channelAt}, '{"serial":' || serial || $${fragmentAt} || $${channelAt + 1})`
    }`;
  const rows = await q.query<StoredTelegram & { conversion: boolean }>(
    `WITH existing AS (
       SELECT serial, id, classification FROM telegrams WHERE raw_digest = $2 OR id = $3 LIMIT 1
     ), xml AS (
       INSERT INTO telegrams (${INSERT_COLUMNS})
       SELECT ${xmlValues.sql}
       FROM pg_advisory_xact_lock($1) WHERE NOT EXISTS (SELECT 1 FROM existing)
       ${returning(channelAt + 2)}
     )${
       jsonValues
         ? `, json AS (
       INSERT INTO telegrams (${INSERT_COLUMNS})
       SELECT ${jsonValues.sql} FROM xml
       ${returning(channelAt + 3)}
     )`
         : ''
     }${after ? `, projection AS (${after.sql})` : ''}
     SELECT serial, id, classification, false AS duplicate, false AS conversion FROM xml
     ${jsonValues ? 'UNION ALL SELECT serial, id, classification, false AS duplicate, true AS conversion FROM json' : ''}
     UNION ALL SELECT serial, id, classification, true AS duplicate, false AS conversion FROM existing`,
    [
      INGEST_LOCK_KEY,
      ...xmlValues.params,
      ...(jsonValues?.params ?? []),
      ...(after?.params ?? []),
      ...(announceOn === undefined
        ? []
        : [
            announceOn.channel,
            announceOn.suffix,
            announceOn.fragments[0] ?? '',
            ...(json ? [announceOn.fragments[1] ?? ''] : []),
          ]),
    ],
  );
  const strip = ({ conversion: _, ...t }: StoredTelegram & { conversion: boolean }) => t;
  const stored = rows.find((r) => !r.conversion)!;
  const converted = rows.find((r) => r.conversion);
  return converted ? { stored: strip(stored), converted: strip(converted) } : { stored: strip(stored) };
}

/** The stored telegram with these raw bytes or this delivered body, as a duplicate. */
export async function findStored(q: Queryable, t: PreparedTelegram): Promise<StoredTelegram | null> {
  const rows = await q.query<StoredTelegram>(
    'SELECT serial, id, classification, true AS duplicate FROM telegrams WHERE raw_digest = $1 OR id = $2 LIMIT 1',
    [t.rawDigest, t.id],
  );
  return rows[0] ?? null;
}

/** The full telegram with this serial (the real-time delivery reads it after the bus announces it). */
export function loadTelegram(q: Queryable, serial: number): Promise<TelegramRecord | null> {
  return loadOne(q, 'serial', serial);
}

/** The full telegram of this id (the API's telegram id), or null. */
export function loadTelegramById(q: Queryable, id: string): Promise<TelegramRecord | null> {
  return loadOne(q, 'id', id);
}

async function loadOne(
  q: Queryable,
  key: 'serial' | 'id',
  value: number | string,
): Promise<TelegramRecord | null> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, ${BODY_COLUMN} FROM telegrams WHERE ${key} = $1`,
    [value],
  );
  return rows[0] ? { ...toSummary(rows[0]), body: bodyOf(rows[0]) } : null;
}

/** The summaries of the telegrams with these serials, in serial order (unknown serials skipped). */
export async function loadSummaries(q: Queryable, serials: readonly number[]): Promise<TelegramSummary[]> {
  if (serials.length === 0) return [];
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS} FROM telegrams WHERE serial = ANY($1::int8[]) ORDER BY serial`,
    [serials as number[]],
  );
  return rows.map(toSummary);
}

/** Full telegrams with serials above `after`, oldest first (at most `limit`). */
export async function loadTelegramsAfter(
  q: Queryable,
  after: number,
  limit: number,
): Promise<TelegramRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, ${BODY_COLUMN} FROM telegrams WHERE serial > $1 ORDER BY serial LIMIT $2`,
    [after, limit],
  );
  return rows.map((r) => ({ ...toSummary(r), body: bodyOf(r) }));
}

/** The newest full telegrams, newest first. */
export async function loadNewestTelegrams(q: Queryable, limit: number): Promise<TelegramRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, ${BODY_COLUMN} FROM telegrams ORDER BY serial DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ ...toSummary(r), body: bodyOf(r) }));
}

/**
 * The newest JSON conversions of one event (`facts.event`, `kind:EventID`, facts.ts), test ones or
 * not, newest first and at most `limit`: the console draws a training event from them, which the
 * earthquake projection leaves out.
 */
export async function loadEventConversions(
  q: Queryable,
  event: string,
  test: boolean,
  limit: number,
): Promise<TelegramRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${SUMMARY_COLUMNS}, ${BODY_COLUMN} FROM telegrams
      WHERE facts ? 'event' AND facts->>'event' = $1 AND format = 'json' AND test = $2
      ORDER BY serial DESC LIMIT $3`,
    [event, test, limit],
  );
  return rows.map((r) => ({ ...toSummary(r), body: bodyOf(r) }));
}

export interface StoredBody {
  classification: string;
  format: TelegramFormat;
  compression: 'gzip' | null;
  body: Buffer;
}

export async function loadBody(q: Queryable, id: string): Promise<StoredBody | null> {
  const rows = await q.query<Omit<StoredBody, 'body'> & { body64: string }>(
    `SELECT classification, format, compression, ${BODY_COLUMN} FROM telegrams WHERE id = $1`,
    [id],
  );
  const r = rows[0];
  return r
    ? { classification: r.classification, format: r.format, compression: r.compression, body: bodyOf(r) }
    : null;
}

/** The stored JSON conversion of the XML telegram with this id: its serial, id and body. */
export async function loadConversionOf(
  q: Queryable,
  originalId: string,
): Promise<{ serial: number; id: string; body: Buffer } | null> {
  const rows = await q.query<{ serial: number; id: string; body64: string }>(
    `SELECT serial, id, ${BODY_COLUMN} FROM telegrams WHERE original_id = $1`,
    [originalId],
  );
  const r = rows[0];
  return r ? { serial: r.serial, id: r.id, body: bodyOf(r) } : null;
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
