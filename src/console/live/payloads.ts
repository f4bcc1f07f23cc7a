import type { TelegramRecord } from '../../telegrams/record.ts';
import type { TelegramSummary } from '../../telegrams/store.ts';
import { conversionDocument } from './documents.ts';
import { livePaths } from '../paths.ts';

/**
 * What the live view's event stream says about one stored telegram (docs/console-live.md
 * "Events"): a `telegram` line for every telegram but JSON conversions, an `eew` banner from an
 * early warning's conversion (VXSE43/44/45), a wake-up `quake` from an earthquake report's conversion.
 */
export type LivePayload =
  | { event: 'telegram'; data: TelegramLine }
  | { event: 'eew'; data: EewBanner }
  | { event: 'quake'; data: { eventId: string } };

/**
 * A telegram that is not real, by JMA's Control/Status: 訓練 (a training exercise, such as the
 * console's scenarios) or 試験 (a test of the distribution). Each is said as what it is.
 */
export type NotReal = 'training' | 'test' | null;

export const notRealOf = (status: string | null | undefined): NotReal =>
  status === '訓練' ? 'training' : status === '試験' ? 'test' : null;

/**
 * A telegram that withdraws or corrects an earlier one (`Head/InfoType` 取消, 訂正): its line says so
 * first, since a cancellation may repeat the title and headline of what it withdraws.
 */
export type Amends = 'cancelled' | 'corrected' | null;

const amendsOf = (infoType: string | undefined): Amends =>
  infoType === '取消' ? 'cancelled' : infoType === '訂正' ? 'corrected' : null;

export interface TelegramLine {
  serial: number;
  type: string;
  classification: string;
  title: string;
  headline: string | null;
  receivedTime: string;
  notReal: NotReal;
  amends: Amends;
  href: string;
}

/** A range of classes as JMA forecasts it: `to` may be `over` (that class or above); `不明` both. */
export type ClassRange = { from: string; to: string };

/**
 * What the banner says of one early warning (docs/console-live.md "EEW banner"). An assumed
 * hypocentre (仮定震源要素: the PLUM method alone, or a level method) has no depth, magnitude or
 * origin time here: JMA writes fixed values for them (10 km, M1.0, the time it assumes), no estimate.
 */
export interface EewBanner {
  serial: number;
  eventId: string;
  serialNo: string | null;
  receivedTime: string;
  isWarning: boolean;
  isCanceled: boolean;
  isLastInfo: boolean;
  isAssumed: boolean;
  forecastMaxInt: ClassRange | null;
  /** 長周期地震動階級 (VXSE45 only). */
  forecastMaxLgInt: ClassRange | null;
  hypocentre: string | null;
  /** In km; with its condition (ごく浅い, ７００ｋｍ以上, 不明) the banner says the condition instead. */
  depth: string | null;
  depthCondition: string | null;
  magnitude: string | null;
  /** Ｍ不明 or Ｍ８を超える巨大地震, when the magnitude is not a figure. */
  magnitudeCondition: string | null;
  originTime: string | null;
  notReal: NotReal;
  href: string;
}

/**
 * Early warnings, the data types of the banner. The eew-information schema also converts VXSE42,
 * JMA's 緊急地震速報配信テスト (a test of the warnings' delivery, Status 試験, no earthquake in it): it
 * is listed as any telegram, but is no warning and raises no banner.
 */
export const EEW_TYPES: readonly string[] = ['VXSE43', 'VXSE44', 'VXSE45'];

const EARTHQUAKE_SCHEMAS = new Set(['earthquake-information', 'earthquake-hypocenter-update']);

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A stored telegram; the body is needed only for JSON conversions. */
type Shown = TelegramSummary & { body?: Buffer };

function rangeOf(value: unknown): ClassRange | null {
  const from = str(obj(value).from);
  const to = str(obj(value).to);
  return from !== null && to !== null ? { from, to } : null;
}

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
        notReal: notRealOf(report?.control.status),
        amends: amendsOf(report?.head.infoType),
        href,
      },
    };
  }
  const schema = record.conversion?.schema.type;
  if (schema === 'eew-information' && EEW_TYPES.includes(record.head.type)) {
    const doc = documentOf(record);
    if (!doc) return null;
    const body = obj(doc.body);
    const earthquake = obj(body.earthquake);
    const hypocenter = obj(earthquake.hypocenter);
    const depth = obj(hypocenter.depth);
    const magnitude = obj(earthquake.magnitude);
    const intensity = obj(body.intensity);
    const isAssumed = earthquake.condition === '仮定震源要素';
    const estimated = (value: unknown) => (isAssumed ? null : str(value));
    return {
      event: 'eew',
      data: {
        serial: record.serial,
        eventId: str(doc.eventId) ?? '',
        serialNo: str(doc.serialNo),
        receivedTime: record.receivedTime,
        isWarning: body.isWarning === true,
        isCanceled: doc.infoType === '取消' || body.isCanceled === true,
        isLastInfo: body.isLastInfo === true,
        isAssumed,
        forecastMaxInt: rangeOf(intensity.forecastMaxInt),
        forecastMaxLgInt: rangeOf(intensity.forecastMaxLgInt),
        hypocentre: str(hypocenter.name),
        depth: estimated(depth.value),
        depthCondition: estimated(depth.condition),
        magnitude: estimated(magnitude.value),
        magnitudeCondition: estimated(magnitude.condition),
        originTime: estimated(earthquake.originTime),
        notReal: notRealOf(str(doc.status)),
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
