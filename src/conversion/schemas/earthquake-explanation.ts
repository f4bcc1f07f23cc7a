import type { EarthquakeExplanation } from '@dmdata/telegram-json-types';
import { cancellationBody, freeFormComments, isCancellation, writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter } from '../types.ts';

type PublicBody = EarthquakeExplanation.v1_0_0.PublicBody;

/**
 * 地震の活動状況等に関する情報 (VXSE56) → earthquake-explanation 1.0.0
 * (docs/conversion/earthquake-explanation.md).
 */
export const earthquakeExplanation: Converter = {
  schema: { type: 'earthquake-explanation', version: '1.0.0' },
  convert(source) {
    const body = isCancellation(source) ? cancellationBody(source) : convertBody(source);
    return buildDocument(source, this.schema, body);
  },
};

function convertBody(source: ConversionSource): PublicBody {
  const body = source.report.child('Body');
  const naming = body?.child('Naming');
  const name = writtenText(naming)?.trim();
  const english = naming?.attr('english')?.trim();
  const comments = freeFormComments(body);
  return {
    ...(name !== undefined ? { naming: { text: name, ...(english ? { en: english } : {}) } } : {}),
    text: writtenText(body?.child('Text')) ?? '',
    ...(comments ? { comments } : {}),
  };
}
