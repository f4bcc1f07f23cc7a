// The first step of preparing a telegram (prepare.ts): read and check the bytes received.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { classify } from './classify.ts';
import { authorFromOffice } from './offices.ts';
import type { TelegramFormat, TelegramHead, TelegramRecord, XmlReport } from './record.ts';
import { typeFromTitle } from './title-codes.ts';
import { fromFileName, resolveHeaderTime, splitHeader, type TransportHeader } from './transport.ts';
import type { XmlElement } from '../conversion/xml-element.ts';
import { parseXml, parseXmlHead, XmlRejected } from './xml.ts';
import { extractXmlReport } from './xml-report.ts';
import { extractFacts } from './facts.ts';

/** What a source knows about a telegram besides its bytes. Every field is optional. */
export interface IngestHints {
  /** File name as received (feed/archive names carry the type, sometimes the author). */
  fileName?: string;
  type?: string;
  author?: string;
  /** head.time as stated by the source (ISO 8601). */
  time?: string;
  designation?: string | null;
  target?: string;
  /** When the telegram was received (ms since epoch). */
  receivedTime: number;
}

/** A telegram read and checked, before its body is compressed and identified (identify.ts). */
export interface ReadTelegram extends Omit<TelegramRecord, 'serial' | 'id' | 'body'> {
  /** SHA-384 hex of the bytes as received (idempotency key). */
  rawDigest: string;
  /** The bytes to deliver, before compression. */
  payload: Buffer;
}

export type TelegramRead =
  | {
      ok: true;
      telegram: ReadTelegram;
      /** The parsed XML document (XML telegrams only): what the JSON conversion reads. */
      xmlDocument?: XmlElement;
    }
  | { ok: false; reason: string };

const TYPE_CODE = /^[A-Z]{4}([0-9]{2}|ii)$/;
const AUTHOR_CODE = /^[A-Z]{4}$/;
const DESIGNATION = /^[A-Z]{3}$/;
const TARGET = /^[0-9A-Za-z]{1,16}$/;
/** XML bodies that the production service delivers uncompressed. */
const UNCOMPRESSED_XML = new Set(['VGSK50', 'VGSK55', 'VGSK60']);

/** SHA-384 in hex: every telegram's id (of its delivered body) and idempotency key. */
export const sha384 = (b: Buffer | string) => createHash('sha384').update(b).digest('hex');
const reject = (reason: string) => ({ ok: false as const, reason });

/**
 * Reads and checks received bytes (pure: no I/O), of any size: the ingest refuses a telegram over the
 * limit before it gets here (size.ts). XML is parsed safely and must carry Control and
 * Head; the type and author come from the transport (header, file name, hints) or, for XML, from
 * Control/Title and the issuing office; a type that cannot be determined is a rejection. With `scope`
 * "head", an XML telegram's Control and Head are read and checked and the rest is not (xml.ts
 * `parseXmlHead`): the outcome has no `xmlDocument`, and is otherwise that of a whole read.
 */
export function readTelegram(
  raw: Buffer,
  hints: IngestHints,
  scope: 'whole' | 'head' = 'whole',
): TelegramRead {
  if (raw.length === 0) return reject('empty telegram');
  for (const [name, value, pattern] of [
    ['type', hints.type, TYPE_CODE],
    ['author', hints.author, AUTHOR_CODE],
    ['designation', hints.designation ?? undefined, DESIGNATION],
    ['target', hints.target, TARGET],
  ] as const) {
    if (value !== undefined && !pattern.test(value)) return reject(`invalid ${name} "${value}"`);
  }
  let statedTime: number | undefined;
  if (hints.time !== undefined) {
    statedTime = Date.parse(hints.time);
    if (!storableTime(statedTime)) return reject(`invalid time "${hints.time}"`);
  }

  const { header, payload } = splitHeader(raw);
  if (payload.length === 0) return reject('telegram has a header but no body');
  const named = hints.fileName ? fromFileName(hints.fileName) : null;
  const xml = looksLikeXml(payload);

  let xmlReport: XmlReport | null = null;
  let xmlDocument: XmlElement | undefined;
  if (xml) {
    try {
      if (scope === 'whole') xmlDocument = parseXml(payload);
      xmlReport = extractXmlReport(xmlDocument ?? parseXmlHead(payload));
    } catch (err) {
      if (err instanceof XmlRejected) return reject(err.message);
      throw err;
    }
  }

  let type = hints.type ?? header?.type ?? named?.type;
  if (type === undefined) {
    if (!xmlReport) return reject('data type code unknown: a non-XML telegram needs a JMA header or a type');
    const byTitle = typeFromTitle(xmlReport.control.title, xmlReport.head.title);
    if ('reason' in byTitle) return reject(byTitle.reason);
    type = byTitle.type;
  }
  const author =
    hints.author ??
    header?.author ??
    named?.author ??
    (xmlReport ? authorFromOffice(xmlReport.control.editorialOffice) : undefined);
  if (author === undefined)
    return reject('office code unknown: a non-XML telegram needs a JMA header or an author');

  const format: TelegramFormat = xml ? 'xml' : isText(payload) ? 'a/n' : 'binary';
  const classification = classify(type, xml);
  if (classification === null) return reject(`data type code ${type} belongs to no known classification`);

  const time = headTime(statedTime, header, xmlReport, hints.receivedTime);
  if (time === null) return reject(`Head/ReportDateTime is not an ISO 8601 time of the years 0001 to 9999`);

  const head: TelegramHead = {
    type,
    author,
    ...(hints.target !== undefined ? { target: hints.target } : {}),
    time,
    designation: hints.designation ?? header?.designation ?? designationOf(xmlReport),
    test: xmlReport !== null && (xmlReport.control.status === '訓練' || xmlReport.control.status === '試験'),
    xml,
  };

  const compressed = xml && !UNCOMPRESSED_XML.has(type);
  return {
    ok: true,
    ...(xmlDocument ? { xmlDocument } : {}),
    telegram: {
      rawDigest: sha384(raw),
      classification,
      head,
      receivedTime: new Date(hints.receivedTime).toISOString(),
      format,
      xmlReport,
      compression: compressed ? 'gzip' : null,
      encoding: compressed || format === 'binary' ? 'base64' : 'utf-8',
      payload,
      ...(xmlDocument ? { facts: extractFacts(type, xmlDocument) } : {}),
    },
  };
}

function looksLikeXml(payload: Buffer): boolean {
  let i = payload[0] === 0xef && payload[1] === 0xbb && payload[2] === 0xbf ? 3 : 0;
  while (
    i < payload.length &&
    (payload[i] === 0x20 || payload[i] === 0x0a || payload[i] === 0x0d || payload[i] === 0x09)
  )
    i++;
  return payload[i] === 0x3c; // '<'
}

/** A/N: valid UTF-8 without control characters other than CR, LF, tab and ETX/SOH framing. */
function isText(payload: Buffer): boolean {
  if (
    payload.subarray(0, 4).toString('latin1') === 'BUFR' ||
    payload.subarray(0, 4).toString('latin1') === 'GRIB'
  ) {
    return false;
  }
  if (!isUtf8(payload)) return false;
  for (const b of payload) if (b < 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0x03) return false;
  return true;
}

/**
 * Whether a time is one both database engines store: years 0001 to 9999 (UTC). PostgreSQL's
 * driver writes other years its own way and PGlite's refuses them, so a telegram dated outside
 * them would be stored on one engine and refused on the other; no real telegram is.
 */
export const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');
const storableTime = (ms: number) => ms >= EARLIEST_TIME && ms <= LATEST_TIME;

/**
 * head.time (docs/api-contract.md "Telegram identity"): the transport header's time; without one,
 * Head/ReportDateTime in UTC truncated to the minute; a non-XML telegram without either takes its
 * reception minute.
 */
function headTime(
  stated: number | undefined,
  header: TransportHeader | null,
  report: XmlReport | null,
  receivedTime: number,
): string | null {
  if (stated !== undefined) return new Date(stated).toISOString();
  const reportTime = report ? Date.parse(report.head.reportDateTime) : undefined;
  if (reportTime !== undefined && !storableTime(reportTime)) return null;
  if (header) return resolveHeaderTime(header, reportTime ?? receivedTime).toISOString();
  const base = reportTime ?? receivedTime;
  return new Date(base - (((base % 60_000) + 60_000) % 60_000)).toISOString();
}

/** Without a transport designation, corrected and delayed XML reports get the WMO indicators. */
function designationOf(report: XmlReport | null): string | null {
  if (report?.head.infoType === '訂正') return 'CCA';
  if (report?.head.infoType === '遅延') return 'RRA';
  return null;
}
