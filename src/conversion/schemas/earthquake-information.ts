import type { Components, EarthquakeInformation } from '@dmdata/telegram-json-types';
import { convertCodedComment } from '../coded-comment.ts';
import { convertEarthquake } from '../earthquake.ts';
import { documentConverter } from '../head.ts';
import {
  convertIntensityObservation,
  convertLgIntensityObservation,
  type IntensityObservation as Intensity,
} from '../intensity-observation.ts';
import type { ConversionSource, SchemaRef } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

/** The body of every issued type (VZSE40 aside): which parts appear depends on the XML. */
interface PublicBody {
  earthquake?: Components.Earthquake;
  intensity?: Intensity | EarthquakeInformation.v1_1_0.IntensityVXSE62;
  text?: string;
  comments: EarthquakeInformation.v1_1_0.Comments;
}

const schema: SchemaRef = { type: 'earthquake-information', version: '1.1.0' };

/**
 * VXSE51 震度速報, VXSE52 震源に関する情報, VXSE53 震源・震度に関する情報 (also 遠地地震に関する情報),
 * VXSE62 長周期地震動に関する観測情報 and VZSE40 地震・津波に関するお知らせ
 * (docs/conversion/earthquake-information.md).
 */
export const earthquakeInformation = documentConverter(schema, convertBody);

function convertBody(
  source: ConversionSource,
): EarthquakeInformation.v1_1_0.CancelBody | EarthquakeInformation.v1_1_0.PublicBodyVZSE40 | PublicBody {
  const body = source.report.child('Body');
  const text = body?.child('Text')?.text;
  const cancelled = source.report.at('Head/InfoType')?.text.trim() === '取消';
  if (cancelled || source.type === 'VZSE40') return { text: text ?? '' };
  const out: Omit<PublicBody, 'comments'> = {};
  const earthquake = body?.child('Earthquake');
  if (earthquake) out.earthquake = convertEarthquake(earthquake);
  const observation = body?.at('Intensity/Observation');
  if (observation) {
    out.intensity =
      source.type === 'VXSE62'
        ? convertLgIntensityObservation(observation)
        : convertIntensityObservation(observation, source.type === 'VXSE53');
  }
  if (text?.trim()) out.text = text;
  return { ...out, comments: convertComments(body?.child('Comments')) };
}

/** Free text as written, the fixed-phrase comments with their codes, and the URI (VXSE62). */
function convertComments(comments: XmlElement | undefined): EarthquakeInformation.v1_1_0.Comments {
  const out: EarthquakeInformation.v1_1_0.Comments = {};
  if (!comments) return out;
  const free = comments.child('FreeFormComment')?.text;
  if (free?.trim()) out.free = free;
  const forecast = convertCodedComment(comments.all('ForecastComment'));
  if (forecast) out.forecast = forecast;
  const varComment = convertCodedComment(comments.all('VarComment'));
  if (varComment) out.var = varComment;
  const uri = comments.child('URI')?.text.trim();
  if (uri) out.uri = uri;
  return out;
}
