import type { TelegramJSONMain } from '@dmdata/telegram-json-types';
import { writtenText } from './free-text.ts';
import type { ConversionSource, ConvertedDocument, Converter, SchemaRef } from './types.ts';
import type { XmlElement } from './xml-element.ts';

/** The common part of every JSON conversion: everything but `_schema` and `body`. */
export type ConvertedHead = Omit<TelegramJSONMain, '_schema' | 'body'>;

const emptyToNull = (value: string | undefined): string | null => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
};

/**
 * Control and Head of a JMA report in the shape every schema shares (docs/conversion.md, "Common
 * header"): values verbatim (times keep the XML's own offset), empty EventID/Serial/Headline → null,
 * the headline as written (line breaks kept), PublishingOffice split on white space; optional Head
 * times appear only when the XML has them.
 */
export function convertHead(report: XmlElement, originalId: string): ConvertedHead {
  const control = report.child('Control');
  const head = report.child('Head');
  const text = (element: XmlElement | undefined, name: string) => element?.child(name)?.text.trim() ?? '';
  const optional = (name: string) => emptyToNull(head?.child(name)?.text) ?? undefined;
  const dubious = optional('TargetDTDubious');
  const duration = optional('TargetDuration');
  const valid = optional('ValidDateTime');
  // Keys in the production service's order.
  const out: ConvertedHead = {
    _originalId: originalId,
    type: text(control, 'Title'),
    title: text(head, 'Title'),
    status: text(control, 'Status') as ConvertedHead['status'],
    infoType: text(head, 'InfoType') as ConvertedHead['infoType'],
    editorialOffice: text(control, 'EditorialOffice'),
    publishingOffice: text(control, 'PublishingOffice').split(/\s+/u).filter(Boolean),
    pressDateTime: text(control, 'DateTime'),
    reportDateTime: text(head, 'ReportDateTime'),
    targetDateTime: text(head, 'TargetDateTime'),
    ...(dubious !== undefined ? { targetDateTimeDubious: dubious } : {}),
    ...(duration !== undefined ? { targetDuration: duration } : {}),
    ...(valid !== undefined ? { validDateTime: valid } : {}),
    eventId: emptyToNull(head?.child('EventID')?.text),
    serialNo: emptyToNull(head?.child('Serial')?.text),
    infoKind: text(head, 'InfoKind'),
    infoKindVersion: text(head, 'InfoKindVersion'),
    headline: writtenText(head?.at('Headline/Text')) ?? null,
  };
  return out;
}

/** A whole document: `_originalId`, `_schema`, the common header, then the schema's body. */
export function buildDocument(source: ConversionSource, schema: SchemaRef, body: object): ConvertedDocument {
  const { _originalId, ...head } = convertHead(source.report, source.originalId);
  return { _originalId, _schema: { type: schema.type, version: schema.version }, ...head, body };
}

/** A converter that turns every telegram of its types into one document: the header and `body`. */
export function documentConverter(schema: SchemaRef, body: (source: ConversionSource) => object): Converter {
  return { schema, convert: (source) => buildDocument(source, schema, body(source)) };
}
