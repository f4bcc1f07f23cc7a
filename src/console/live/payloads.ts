import type { TelegramRecord } from '../../telegrams/record.ts';
import type { TelegramSummary } from '../../telegrams/store.ts';
import { conversionDocument } from './documents.ts';
import { livePaths } from '../paths.ts';

/**
 * What the live view's event stream says about one stored telegram (docs/console-live.md
 * "Events"): a `telegram` line for every telegram but JSON conversions, an `eew` banner from an
 * early warning's conversion, a wake-up `quake` from an earthquake report's conversion.
 */
export type LivePayload =
  | { event: 'telegram'; data: TelegramLine }
  | { event: 'eew'; data: EewBanner }
  | { event: 'quake'; data: { eventId: string } };

export interface TelegramLine {
  serial: number;
  type: string;
  classification: string;
  title: string;
  headline: string | null;
  receivedTime: string;
  test: boolean;
  href: string;
}

export interface EewBanner {
  serial: number;
  eventId: string;
  serialNo: string | null;
  isWarning: boolean;
  isCanceled: boolean;
  isLastInfo: boolean;
  forecastMaxInt: { from: string; to: string } | null;
  hypocentre: string | null;
  /** In km; with its condition (ごく浅い, ７００ｋｍ以上, 不明) the banner says the condition instead. */
  depth: string | null;
  depthCondition: string | null;
  magnitude: string | null;
  /** Ｍ不明 or Ｍ８を超える巨大地震, when the magnitude is not a figure. */
  magnitudeCondition: string | null;
  originTime: string | null;
  test: boolean;
  href: string;
}

const EARTHQUAKE_SCHEMAS = new Set(['earthquake-information', 'earthquake-hypocenter-update']);

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A stored telegram; the body is needed only for JSON conversions. */
type Shown = TelegramSummary & { body?: Buffer };

const documentOf = (record: Shown) => (record.body ? conversionDocument(record as TelegramRecord) : null);

export function payloadOf(record: Shown): LivePayload | null {
  const href = livePaths.telegram.replace(':serial', String(record.serial));
  if (record.format !== 'json') {
    const report = record.xmlReport;
    return {
      event: 'telegram',
      data: {
        serial: record.serial,
        type: record.head.type,
        classification: record.classification,
        title: report?.head.title ?? report?.control.title ?? record.head.type,
        headline: report?.head.headline ?? null,
        receivedTime: record.receivedTime,
        test: record.head.test,
        href,
      },
    };
  }
  const schema = record.conversion?.schema.type;
  if (schema === 'eew-information') {
    const doc = documentOf(record);
    if (!doc) return null;
    const body = obj(doc.body);
    const earthquake = obj(body.earthquake);
    const hypocenter = obj(earthquake.hypocenter);
    const depth = obj(hypocenter.depth);
    const magnitude = obj(earthquake.magnitude);
    const forecast = obj(obj(body.intensity).forecastMaxInt);
    const from = str(forecast.from);
    const to = str(forecast.to);
    return {
      event: 'eew',
      data: {
        serial: record.serial,
        eventId: str(doc.eventId) ?? '',
        serialNo: str(doc.serialNo),
        isWarning: body.isWarning === true,
        isCanceled: doc.infoType === '取消' || body.isCanceled === true,
        isLastInfo: body.isLastInfo === true,
        forecastMaxInt: from !== null && to !== null ? { from, to } : null,
        hypocentre: str(hypocenter.name),
        depth: str(depth.value),
        depthCondition: str(depth.condition),
        magnitude: str(magnitude.value),
        magnitudeCondition: str(magnitude.condition),
        originTime: str(earthquake.originTime),
        test: record.head.test,
        href,
      },
    };
  }
  if (schema && EARTHQUAKE_SCHEMAS.has(schema)) {
    const eventId = str(documentOf(record)?.eventId);
    return eventId ? { event: 'quake', data: { eventId } } : null;
  }
  return null;
}
