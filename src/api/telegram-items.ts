import type { TelegramSummary } from '../telegrams/store.ts';

export const bodyUrl = (dataUrl: string, id: string) => `${dataUrl}/v1/${id}`;

/** A telegram as an item of the v2 list (service.md "Telegram item, list v2"). */
export function itemV2(t: TelegramSummary, dataUrl: string, withXmlReport: boolean) {
  return {
    serial: t.serial,
    id: t.id,
    classification: t.classification,
    head: t.head,
    receivedTime: t.receivedTime,
    ...(withXmlReport && t.xmlReport ? { xmlReport: t.xmlReport } : {}),
    format: t.format,
    url: bodyUrl(dataUrl, t.id),
  };
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
