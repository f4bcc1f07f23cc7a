import type { EarthquakeHypocenterUpdate } from '@dmdata/telegram-json-types';
import { convertCoordinate } from '../coordinate.ts';
import { convertDepth, convertEarthquake } from '../earthquake.ts';
import { documentConverter } from '../head.ts';
import type { ConversionSource, SchemaRef } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

const schema: SchemaRef = { type: 'earthquake-hypocenter-update', version: '1.0.0' };
/** The `type` of the hypocentre coordinate in degrees and minutes, the one this schema carries. */
const DEGREES_MINUTES = '震源位置（度分）';

/** VXSE61 顕著な地震の震源要素更新のお知らせ (docs/conversion/earthquake-hypocenter-update.md). */
export const earthquakeHypocenterUpdate = documentConverter(schema, convertBody);

function convertBody(
  source: ConversionSource,
): EarthquakeHypocenterUpdate.v1_0_0.PublicBody | EarthquakeHypocenterUpdate.v1_0_0.CancelBody {
  const body = source.report.child('Body');
  const text = body?.child('Text')?.text;
  const earthquake = body?.child('Earthquake');
  if (source.report.at('Head/InfoType')?.text.trim() === '取消' || !earthquake) return { text: text ?? '' };
  const out: EarthquakeHypocenterUpdate.v1_0_0.PublicBody = {
    earthquake: convertUpdatedEarthquake(earthquake),
  };
  if (text?.trim()) out.text = text;
  const free = body?.at('Comments/FreeFormComment')?.text;
  if (free?.trim()) out.comments = { free };
  return out;
}

/** The Earthquake component with the hypocentre in degrees and minutes when the XML gives it. */
function convertUpdatedEarthquake(
  earthquake: XmlElement,
): EarthquakeHypocenterUpdate.v1_0_0.PublicBody['earthquake'] {
  const out = convertEarthquake(earthquake);
  const coordinate = earthquake
    .allAt('Hypocenter/Area/Coordinate')
    .find((c) => c.attr('type') === DEGREES_MINUTES);
  if (coordinate) {
    out.hypocenter.coordinate = convertCoordinate(coordinate);
    out.hypocenter.depth = convertDepth(coordinate);
  }
  return out;
}
