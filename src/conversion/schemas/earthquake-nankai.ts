import type { EarthquakeNankai } from '@dmdata/telegram-json-types';
import { cancellationBody, isCancellation, writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

type PublicBody = EarthquakeNankai.v1_0_0.PublicBody;
type EarthquakeInfo = EarthquakeNankai.v1_0_0.EarthquakeInfo;

/**
 * 南海トラフ地震臨時情報 (VYSE50), 南海トラフ地震関連解説情報 (VYSE51, VYSE52) and
 * 北海道・三陸沖後発地震注意情報 (VYSE60) → earthquake-nankai 1.0.0
 * (docs/conversion/earthquake-nankai.md).
 */
export const earthquakeNankai: Converter = {
  schema: { type: 'earthquake-nankai', version: '1.0.0' },
  convert(source) {
    const body = isCancellation(source) ? cancellationBody(source) : convertBody(source);
    return buildDocument(source, this.schema, body);
  },
};

function convertBody(source: ConversionSource): PublicBody {
  const body = source.report.child('Body');
  const info = body?.child('EarthquakeInfo');
  const nextAdvisory = writtenText(body?.child('NextAdvisory'));
  const text = writtenText(body?.child('Text'));
  return {
    ...(info ? { earthquakeInfo: convertInfo(info) } : {}),
    ...(nextAdvisory !== undefined ? { nextAdvisory } : {}),
    ...(text !== undefined ? { text } : {}),
  };
}

/** The information's kind (`InfoSerial`, absent in VYSE60), its text and the reference appendix. */
function convertInfo(info: XmlElement): EarthquakeInfo {
  const serial = info.child('InfoSerial');
  const code = serial?.textAt('Code')?.trim();
  const appendix = writtenText(info.child('Appendix'));
  return {
    ...(code ? { kind: { code, name: serial?.textAt('Name')?.trim() ?? '' } } : {}),
    text: writtenText(info.child('Text')) ?? '',
    ...(appendix !== undefined ? { appendix } : {}),
  };
}
