// Reading a shared fixture as the delivery will: the XML converted by the project's own pipeline,
// then summarised (src/webhooks/summary.ts).
import { readFileSync } from 'node:fs';
import { convertReceived } from '../../src/telegrams/prepare.ts';
import type { TelegramRecord } from '../../src/telegrams/record.ts';
import { summarize, type TelegramSummary } from '../../src/webhooks/summary.ts';

/** The summary of an XML telegram given as bytes (from its conversion when it has one). */
export function summaryOfXml(xml: Buffer, fileName = 'telegram.xml'): TelegramSummary | null {
  const converted = convertReceived(xml, { receivedTime: Date.parse('2024-01-01T00:00:00Z'), fileName });
  if (!converted.ok) throw new Error(converted.reason);
  const { telegram, conversion } = converted;
  const document = conversion?.ok ? JSON.parse(`{"_originalId":"x",${conversion.afterOriginalId}`) : null;
  const record: TelegramRecord = { ...telegram, serial: 1, id: telegram.rawDigest, body: telegram.payload };
  return summarize(record, document);
}

/** The summary of a JSON conversion `document` (parsed) of the telegram that the XML at `xmlPath` holds. */
export function summaryOfDocument(xmlPath: string, document: unknown): TelegramSummary | null {
  const converted = convertReceived(readFileSync(xmlPath), {
    receivedTime: Date.parse('2024-01-01T00:00:00Z'),
    fileName: xmlPath.split('/').pop()!,
  });
  if (!converted.ok) throw new Error(converted.reason);
  const { telegram } = converted;
  return summarize({ ...telegram, serial: 1, id: telegram.rawDigest, body: telegram.payload }, document);
}

export function summaryOfFile(path: string): TelegramSummary | null {
  return summaryOfXml(readFileSync(path), path.split('/').pop());
}

/** Decodes RFC 2047 "B" encoded words (UTF-8), dropping the blanks between adjacent ones. */
export function decodeEncodedWords(value: string): string {
  const words = value.split(' ');
  if (!words.every((w) => /^=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=$/.test(w))) return value;
  return Buffer.concat(words.map((w) => Buffer.from(w.slice(10, -2), 'base64'))).toString('utf8');
}
