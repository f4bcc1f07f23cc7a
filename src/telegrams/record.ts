/**
 * A stored telegram as the read side and the WebSocket see it. Built by the ingest pipeline
 * (src/telegrams/), read by the data API (src/api/) and the real-time delivery (src/realtime/).
 */
import type { TelegramFacts } from './facts.ts';

export type TelegramFormat = 'xml' | 'a/n' | 'binary' | 'json';

export interface TelegramHead {
  type: string;
  author: string;
  target?: string;
  /** ISO 8601 UTC with milliseconds. */
  time: string;
  designation: string | null;
  test: boolean;
  xml: boolean;
}

export interface XmlReport {
  control: {
    title: string;
    dateTime: string;
    status: string;
    editorialOffice: string;
    publishingOffice: string;
  };
  head: {
    title: string;
    reportDateTime: string;
    targetDateTime: string;
    targetDateTimeDubious?: string;
    targetDuration?: string;
    validDateTime?: string;
    eventId: string | null;
    serial: string | null;
    infoType: string;
    infoKind: string;
    infoKindVersion: string;
    headline: string | null;
  };
}

export interface TelegramRecord {
  serial: number;
  /** SHA-384 hex of `body` (the bytes as delivered: the gzip stream when compressed). */
  id: string;
  classification: string;
  head: TelegramHead;
  /** ISO 8601 UTC with milliseconds. */
  receivedTime: string;
  format: TelegramFormat;
  xmlReport: XmlReport | null;
  /** 'gzip' for XML (except VGSK50/55/60) and JSON conversions; null otherwise. */
  compression: 'gzip' | null;
  /** 'base64' when compressed or binary, else 'utf-8'. */
  encoding: 'base64' | 'utf-8';
  /** Body bytes as delivered on the WebSocket (before base64). */
  body: Buffer;
  /** JSON conversions only: the schema the document follows and the id of its source XML telegram. */
  conversion?: TelegramConversion;
  /**
   * What the filters by place and strength read (facts.ts): XML telegrams and their conversions;
   * absent for A/N and binary telegrams and for those stored before facts were kept.
   */
  facts?: TelegramFacts | null;
}

export interface TelegramConversion {
  schema: { type: string; version: string };
  originalId: string;
}
