/**
 * A committed telegram carried in its own announcement (docs/realtime.md "Several processes"): the
 * notice of a stored row on the PostgreSQL or Redis bus may hold the whole record when it is small
 * (an early warning is), so that the other processes hold it without reading it back from the
 * database. A process takes it only when it follows the newest telegram it holds (cache.ts);
 * otherwise, or when the notice carries none or one it cannot read, it reads the store as for any
 * announcement.
 */
import { sha384 } from './read.ts';
import type { TelegramRecord } from './record.ts';

/** What a reader checks first: a record of another shape (another version) is not taken. */
const VERSION = 1;

/** NOTIFY payloads must be shorter than 8000 bytes (PostgreSQL's NOTIFY documentation). */
export const NOTICE_MAX_BYTES = 7999;
/** `{"serial":` and a serial of at most 16 digits, before the fragment. */
const SERIAL_PART_BYTES = 26;

/**
 * `,"record":{…}` for the notice of `record` (its serial left out: the statement draws it), or ''
 * when the notice would not fit with `suffix` after it.
 */
export function recordFragment(record: TelegramRecord, suffix: string): string {
  // A telegram far too long is not serialised to find out (megabytes would stall the event loop).
  if (lowerBound(record) > NOTICE_MAX_BYTES) return '';
  const { serial: _, body, ...rest } = record;
  const fragment = `,"record":${JSON.stringify({ v: VERSION, ...rest, body: body.toString('base64') })}`;
  const bytes = SERIAL_PART_BYTES + Buffer.byteLength(fragment) + Buffer.byteLength(suffix);
  return bytes <= NOTICE_MAX_BYTES ? fragment : '';
}

/**
 * Fewer bytes than the record's notice takes: its body in base64, the texts of its Control/Head (as
 * long as the telegram may make them) and its areas (quoted, with a comma each).
 */
function lowerBound({ body, xmlReport, facts }: TelegramRecord): number {
  let texts = 0;
  for (const part of xmlReport === null ? [] : [xmlReport.control, xmlReport.head])
    for (const value of Object.values(part)) if (typeof value === 'string') texts += value.length;
  return Math.ceil(body.length / 3) * 4 + texts + 3 * (facts?.areas.length ?? 0);
}

/**
 * The whole notice of `record` as ingest publishes it after COMMIT (the Redis bus): its serial, and
 * the record when it fits.
 */
export function recordNotice(record: TelegramRecord): string {
  return `{"serial":${record.serial}${recordFragment(record, '}')}}`;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const FORMATS = new Set(['xml', 'a/n', 'binary', 'json']);

/**
 * The record a notice carried for `serial`, or null when it carries none of this version's shape or
 * its body is not the one its id names.
 */
export function announcedRecord(serial: number, value: unknown): TelegramRecord | null {
  if (!isObject(value) || value.v !== VERSION) return null;
  const { id, classification, head, receivedTime, format, xmlReport, compression, encoding, body } = value;
  if (!isString(id) || !isString(classification) || !isString(receivedTime) || !isString(body)) return null;
  if (!isString(format) || !FORMATS.has(format)) return null;
  if (compression !== 'gzip' && compression !== null) return null;
  if (encoding !== 'base64' && encoding !== 'utf-8') return null;
  if (xmlReport !== null && !isObject(xmlReport)) return null;
  if (
    !isObject(head) ||
    !isString(head.type) ||
    !isString(head.author) ||
    !isString(head.time) ||
    (head.designation !== null && !isString(head.designation)) ||
    typeof head.test !== 'boolean' ||
    typeof head.xml !== 'boolean' ||
    (head.target !== undefined && !isString(head.target))
  )
    return null;
  const { conversion, facts } = value;
  if (conversion !== undefined) {
    if (!isObject(conversion) || !isString(conversion.originalId) || !isObject(conversion.schema))
      return null;
    if (!isString(conversion.schema.type) || !isString(conversion.schema.version)) return null;
  }
  if (facts !== undefined && facts !== null) {
    if (!isObject(facts) || !isString(facts.kind) || !Array.isArray(facts.areas)) return null;
    if (!facts.areas.every(isString)) return null;
  }
  const bytes = Buffer.from(body, 'base64');
  if (sha384(bytes) !== id) return null;
  return {
    serial,
    id,
    classification,
    head: head as unknown as TelegramRecord['head'],
    receivedTime,
    format: format as TelegramRecord['format'],
    xmlReport: xmlReport as TelegramRecord['xmlReport'],
    compression,
    encoding,
    ...(conversion !== undefined
      ? { conversion: conversion as unknown as TelegramRecord['conversion'] }
      : {}),
    ...(facts !== undefined ? { facts: facts as TelegramRecord['facts'] } : {}),
    // Last, as a record read from the store has it (store.ts): its keys come in the same order.
    body: bytes,
  };
}
