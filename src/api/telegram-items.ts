import type { TelegramConversion, XmlReport } from '../telegrams/record.ts';
import type { TelegramSummary } from '../telegrams/store.ts';

export const bodyUrl = (dataUrl: string, id: string) => `${dataUrl}/v1/${id}`;

/**
 * A v2 list item as JSON text up to its `url` value, without and with xmlReport. Telegrams never
 * change, so the text is made once per telegram held in memory; only the URL's origin (which
 * follows the request's Host unless configured) is added per request.
 */
const v2Prefixes = new WeakMap<TelegramSummary, [string | undefined, string | undefined]>();

function v2Prefix(t: TelegramSummary, withXmlReport: boolean): string {
  let cached = v2Prefixes.get(t);
  if (!cached) v2Prefixes.set(t, (cached = [undefined, undefined]));
  // Only XML items carry `xmlReport` (service.md): a JSON conversion's source shows in `schema`.
  const slot = withXmlReport && t.xmlReport && !t.conversion ? 1 : 0;
  return (cached[slot] ??= JSON.stringify({
    serial: t.serial,
    id: t.id,
    classification: t.classification,
    head: listHead(t),
    receivedTime: t.receivedTime,
    ...(slot === 1 ? { xmlReport: t.xmlReport } : {}),
    ...(t.conversion ? { schema: t.conversion.schema } : {}),
    format: t.format,
  }).slice(0, -1));
}

/** The head of a list item: a JSON conversion's head has no `xml` flag (as on the WebSocket). */
function listHead(t: TelegramSummary) {
  if (!t.conversion) return t.head;
  const { xml: _xml, ...head } = t.head;
  return head;
}

/**
 * The `items` array of a v2 list as UTF-8 JSON, per items array: a page answered again from the
 * page cache (telegrams/page-cache.ts) is the same array, so its bytes are made once. One form is
 * kept per array, the last asked (the page cache counts one in its bytes, telegrams/summary-bytes.ts);
 * another data URL (a Host header names it unless configured) makes it again.
 */
const v2ItemsBytes = new WeakMap<readonly TelegramSummary[], { key: string; bytes: Buffer }>();

export function v2ItemsJson(
  items: readonly TelegramSummary[],
  dataUrl: string,
  withXmlReport: boolean,
): Buffer {
  const key = `${withXmlReport ? 'x' : '-'}${dataUrl}`;
  const held = v2ItemsBytes.get(items);
  if (held?.key === key) return held.bytes;
  const origin = JSON.stringify(dataUrl).slice(1, -1);
  const text = items.map((t) => `${v2Prefix(t, withXmlReport)},"url":"${origin}/v1/${t.id}"}`).join(',');
  const bytes = Buffer.from(`[${text}]`, 'utf8');
  v2ItemsBytes.set(items, { key, bytes });
  return bytes;
}

/** A telegram as an item of the deprecated v1 list. */
export function itemV1(t: TelegramSummary, dataUrl: string, withXml: boolean) {
  return {
    classification: t.classification,
    key: t.id,
    data: {
      type: t.head.type,
      author: t.head.author,
      time: t.head.time,
      test: t.head.test,
      xml: t.head.xml,
      createTime: t.receivedTime,
      sendNumber: t.serial,
    },
    url: bodyUrl(dataUrl, t.id),
    ...(withXml && t.xmlReport ? { xmlData: t.xmlReport } : {}),
  };
}

/** A stored JSON conversion: a telegram with its source's Control/Head and its schema. */
export type ConversionSummary = TelegramSummary & { conversion: TelegramConversion; xmlReport: XmlReport };

export const isConversion = (t: TelegramSummary): t is ConversionSummary =>
  t.conversion !== undefined && t.xmlReport !== null;

/**
 * A JSON conversion as an item of an earthquake event's or early warning's `telegrams`: the list
 * item with `originalId` and always `xmlReport` (the source XML's Control and Head).
 */
export function conversionItem(t: ConversionSummary, dataUrl: string) {
  return {
    serial: t.serial,
    id: t.id,
    originalId: t.conversion.originalId,
    classification: t.classification,
    head: listHead(t),
    receivedTime: t.receivedTime,
    xmlReport: t.xmlReport,
    schema: t.conversion.schema,
    format: 'json' as const,
    url: bodyUrl(dataUrl, t.id),
  };
}
