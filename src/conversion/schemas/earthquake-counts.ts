import type { EarthquakeCounts } from '@dmdata/telegram-json-types';
import { cancellationBody, freeFormComments, isCancellation, writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

type PublicBody = EarthquakeCounts.v1_0_0.PublicBody;
type EarthquakeCount = EarthquakeCounts.v1_0_0.EarthquakeCount;

/** 地震回数に関する情報 (VXSE60) → earthquake-counts 1.0.0 (docs/conversion/earthquake-counts.md). */
export const earthquakeCounts: Converter = {
  schema: { type: 'earthquake-counts', version: '1.0.0' },
  convert(source) {
    const document = buildDocument(
      source,
      this.schema,
      isCancellation(source) ? cancellationBody(source) : convertBody(source),
    );
    // The schema wants a string even where JMA leaves Serial empty (cancellations).
    return { ...document, serialNo: document.serialNo ?? '' };
  },
};

function convertBody(source: ConversionSource): PublicBody {
  const body = source.report.child('Body');
  const counts = body?.allAt('EarthquakeCount/Item').map(convertCount) ?? [];
  const nextAdvisory = writtenText(body?.child('NextAdvisory'));
  const text = writtenText(body?.child('Text'));
  const comments = freeFormComments(body);
  return {
    ...(counts.length > 0 ? { earthquakeCounts: counts } : {}),
    ...(nextAdvisory !== undefined ? { nextAdvisory } : {}),
    ...(text !== undefined ? { text } : {}),
    ...(comments ? { comments } : {}),
  };
}

function convertCount(item: XmlElement): EarthquakeCount {
  return {
    type: (item.attr('type') ?? '') as EarthquakeCount['type'],
    targetTime: {
      start: item.textAt('StartTime')?.trim() ?? '',
      end: item.textAt('EndTime')?.trim() ?? '',
    },
    values: { all: count(item.child('Number')), felt: count(item.child('FeltNumber')) },
  };
}

/** A count as written; null when JMA does not publish it (element absent or empty, or `-1`). */
function count(element: XmlElement | undefined): string | null {
  const value = element?.text.trim();
  return value === undefined || value === '' || value === '-1' ? null : value;
}
