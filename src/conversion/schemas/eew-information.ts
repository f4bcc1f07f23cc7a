import type { EewInformation } from '@dmdata/telegram-json-types';
import { convertCodedComment } from '../coded-comment.ts';
import { convertCoordinate } from '../coordinate.ts';
import { convertDepth, convertMagnitude } from '../earthquake.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter, SchemaRef } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

type EewCancelBody = EewInformation.v1_0_0.CancelBody;
type EewComments = EewInformation.v1_0_0.Comments;
type EewEarthquake = EewInformation.v1_0_0.Earthquake;
type EewEarthquakeHypocenter = EewInformation.v1_0_0.EarthquakeHypocenter;
type EewEarthquakeHypocenterAccuracy = EewInformation.v1_0_0.EarthquakeHypocenterAccuracy;
type EewEarthquakeMagnitude = EewInformation.v1_0_0.EarthquakeMagnitude;
type EewIntensity = EewInformation.v1_0_0.Intensity;
type EewIntensityAppendix = EewInformation.v1_0_0.IntensityAppendix;
type EewIntensityClass = EewInformation.v1_0_0.IntensityClass;
type EewIntensityForecastLgMaxInt = EewInformation.v1_0_0.IntensityForecastLgMaxInt;
type EewIntensityForecastMaxInt = EewInformation.v1_0_0.IntensityForecastMaxInt;
type EewIntensityRealtimeStation = EewInformation.v1_0_0.IntensityRealtimeStation;
type EewIntensityRegionItem = EewInformation.v1_0_0.IntensityRegionItem;
type EewPublicCommonBody = EewInformation.v1_0_0.PublicCommonBody;
type EewPublicRealtimeBody = EewInformation.v1_0_0.PublicRealtimeBody;
type EewPublicTestingBody = EewInformation.v1_0_0.PublicTestingBody;
type EewWarningArea = EewInformation.v1_0_0.WarningArea;

const schema: SchemaRef = { type: 'eew-information', version: '1.0.0' };

/** Headline `Information/@type` → the body field listing the warned areas of that kind. */
const WARNING_AREA_FIELDS = {
  '緊急地震速報（地方予報区）': 'zones',
  '緊急地震速報（府県予報区）': 'prefectures',
  '緊急地震速報（細分区域）': 'regions',
} as const;

/**
 * eew-information 1.0.0 (docs/conversion/eew-information.md): VXSE42 (配信テスト), VXSE43 (警報),
 * VXSE44 (予報), VXSE45 (地震動予報) and VXSE47 (リアルタイム震度), with their cancellations.
 */
export const eewInformation: Converter = {
  schema,
  convert(source) {
    return buildDocument(source, schema, convertBody(source));
  },
};

function convertBody(source: ConversionSource): object {
  const { report, type } = source;
  const body = report.child('Body');
  const text = body?.child('Text')?.text.trim() || undefined;
  if (report.at('Head/InfoType')?.text.trim() === '取消') {
    const cancel: EewCancelBody = { isLastInfo: true, isCanceled: true, text: text ?? '' };
    return cancel;
  }
  if (type === 'VXSE42') {
    const testing: EewPublicTestingBody = { isLastInfo: false, isCanceled: false, text: text ?? '' };
    return testing;
  }
  // VXSE43 never announces a final report; the others do so in NextAdvisory.
  const isLastInfo = type !== 'VXSE43' && Boolean(body?.child('NextAdvisory')?.text.trim());
  // Every other early warning states its earthquake; without it there is nothing true to convert.
  const earthquakeElement = body?.child('Earthquake');
  if (!earthquakeElement)
    throw new Error('no Body/Earthquake in an early warning that is not a cancellation');
  const earthquake = convertEewEarthquake(earthquakeElement);
  const intensity = body?.child('Intensity');
  if (type === 'VXSE47') {
    const realtime: EewPublicRealtimeBody = { isLastInfo, isCanceled: false, earthquake };
    const observation = intensity?.child('Observation');
    if (observation) realtime.intensity = { stations: convertStations(observation) };
    if (text !== undefined) realtime.text = text;
    return realtime;
  }
  const warningAreas = convertWarningAreas(report.at('Head/Headline'));
  const forecast = intensity?.child('Forecast');
  const forecastIntensity = forecast ? convertForecast(forecast) : undefined;
  const common: EewPublicCommonBody = {
    isLastInfo,
    isCanceled: false,
    isWarning:
      type === 'VXSE43' ||
      Object.keys(warningAreas).length > 0 ||
      (forecastIntensity?.regions.some((region) => region.isWarning) ?? false),
    ...warningAreas,
    earthquake,
  };
  if (forecastIntensity) common.intensity = forecastIntensity;
  if (text !== undefined) common.text = text;
  const comments = convertComments(body?.child('Comments'));
  if (comments) common.comments = comments;
  return common;
}

/** Headline/Information: every warned area with this report's and the previous report's kind. */
function convertWarningAreas(headline: XmlElement | undefined) {
  const out: Partial<
    Record<(typeof WARNING_AREA_FIELDS)[keyof typeof WARNING_AREA_FIELDS], EewWarningArea[]>
  > = {};
  for (const information of headline?.all('Information') ?? []) {
    const field = WARNING_AREA_FIELDS[information.attr('type') as keyof typeof WARNING_AREA_FIELDS];
    if (field === undefined) continue;
    const areas = (out[field] ??= []);
    for (const item of information.all('Item')) {
      const kind = codeName(item.child('Kind'));
      const lastKind = codeName(item.child('LastKind'));
      for (const area of item.child('Areas')?.all('Area') ?? []) {
        areas.push({ ...codeName(area), kind: { ...kind, lastKind } });
      }
    }
  }
  // Key order of the production service: zones, prefectures, regions.
  return Object.fromEntries(
    Object.values(WARNING_AREA_FIELDS).flatMap((field) => (out[field] ? [[field, out[field]]] : [])),
  ) as Pick<EewPublicCommonBody, 'zones' | 'prefectures' | 'regions'>;
}

function codeName(element: XmlElement | undefined) {
  return { code: element?.child('Code')?.text.trim() ?? '', name: element?.child('Name')?.text.trim() ?? '' };
}

/** The EEW form of the hypocentre: reduced name, land or sea and the accuracy ranks. */
function convertEewEarthquake(earthquake: XmlElement): EewEarthquake {
  const area = earthquake.at('Hypocenter/Area');
  const accuracy = earthquake.at('Hypocenter/Accuracy');
  const coordinate = area?.child('Coordinate');
  const originTime = earthquake.child('OriginTime')?.text.trim();
  const condition = earthquake.child('Condition')?.text.trim();
  const landOrSea = area?.child('LandOrSea')?.text.trim();
  const rank = (name: string, attribute = 'rank') => accuracy?.child(name)?.attr(attribute)?.trim() ?? '0';
  const hypocenter: EewEarthquakeHypocenter = {
    ...codeName(area),
    coordinate: convertCoordinate(coordinate) as EewEarthquakeHypocenter['coordinate'],
    depth: eewDepth(coordinate),
    reduce: {
      code: area?.child('ReduceCode')?.text.trim() ?? '',
      name: area?.child('ReduceName')?.text.trim() ?? '',
    },
    ...(landOrSea ? { landOrSea: landOrSea as EewEarthquakeHypocenter['landOrSea'] } : {}),
    accuracy: {
      epicenters: [rank('Epicenter'), rank('Epicenter', 'rank2')],
      depth: rank('Depth'),
      magnitudeCalculation: rank('MagnitudeCalculation'),
      numberOfMagnitudeCalculation: accuracy?.child('NumberOfMagnitudeCalculation')?.text.trim() ?? '0',
    } as EewEarthquakeHypocenterAccuracy,
  };
  const out: EewEarthquake = {
    ...(originTime ? { originTime } : {}),
    arrivalTime: earthquake.child('ArrivalTime')?.text.trim() ?? '',
    ...(condition ? { condition: condition as '仮定震源要素' } : {}),
    hypocenter,
    magnitude: eewMagnitude(earthquake.child('Magnitude')),
  };
  return out;
}

/**
 * The depth with JMA's exceptional forms, as the production service documents them for the EEW
 * (ごく浅い → 0, ７００ｋｍ以上 → 700, no depth → `null` with 不明). The package's schema lacks
 * them; `schema-amendments.ts` admits exactly these three.
 */
function eewDepth(coordinate: XmlElement | undefined): EewEarthquakeHypocenter['depth'] {
  return convertDepth(coordinate) as unknown as EewEarthquakeHypocenter['depth'];
}

/** An unknown EEW magnitude is always `Ｍ不明`, whatever the description's spelling. */
function eewMagnitude(magnitude: XmlElement | undefined): EewEarthquakeMagnitude {
  const converted = convertMagnitude(magnitude);
  const unit = converted.unit as EewEarthquakeMagnitude['unit'];
  if (converted.value === null) return { type: 'マグニチュード', value: null, unit, condition: 'Ｍ不明' };
  return { type: 'マグニチュード', value: converted.value, unit };
}

const unknownRange = () => ({ from: '不明', to: '不明' }) as const;

function fromTo<T>(element: XmlElement | undefined): T | undefined {
  if (!element) return undefined;
  return { from: element.child('From')?.text.trim() ?? '', to: element.child('To')?.text.trim() ?? '' } as T;
}

/** Intensity/Forecast: the maximum forecasts, their change and every forecast area. */
function convertForecast(forecast: XmlElement): EewIntensity {
  const out: EewIntensity = {
    forecastMaxInt: fromTo<EewIntensityForecastMaxInt>(forecast.child('ForecastInt')) ?? unknownRange(),
  } as EewIntensity;
  const lgInt = fromTo<EewIntensityForecastLgMaxInt>(forecast.child('ForecastLgInt'));
  if (lgInt) out.forecastMaxLgInt = lgInt;
  const appendix = forecast.child('Appendix');
  if (appendix) {
    const value = (name: string) => appendix.child(name)?.text.trim();
    const lgChange = value('MaxLgIntChange');
    out.appendix = {
      maxIntChange: (value('MaxIntChange') ?? '0') as EewIntensityAppendix['maxIntChange'],
      ...(lgChange !== undefined ? { maxLgIntChange: lgChange as EewIntensityAppendix['maxIntChange'] } : {}),
      maxIntChangeReason: (value('MaxIntChangeReason') ?? '0') as EewIntensityAppendix['maxIntChangeReason'],
    };
  }
  out.regions = forecast.all('Pref').flatMap((pref) => pref.all('Area').map(convertForecastArea));
  return out;
}

/**
 * One forecast area. The kind code (code table 緊急地震速報種別) is two digits: the first is 1 for
 * 警報 and 0 for 予報, the second 9 when the forecast comes from the PLUM method.
 */
function convertForecastArea(area: XmlElement): EewIntensityRegionItem {
  const kindElement = area.at('Category/Kind');
  const kind = {
    name: kindElement?.child('Name')?.text.trim() ?? '',
    code: kindElement?.child('Code')?.text.trim() ?? '',
  };
  const lgInt = fromTo<EewIntensityForecastLgMaxInt>(area.child('ForecastLgInt'));
  const condition = area.child('Condition')?.text.trim();
  const arrivalTime = area.child('ArrivalTime')?.text.trim();
  return {
    ...codeName(area),
    forecastMaxInt: fromTo<EewIntensityForecastMaxInt>(area.child('ForecastInt')) ?? unknownRange(),
    ...(lgInt ? { forecastMaxLgInt: lgInt } : {}),
    isPlum: kind.code.charAt(1) === '9',
    isWarning: kind.code.charAt(0) === '1',
    kind,
    ...(condition ? { condition } : {}),
    ...(arrivalTime ? { arrivalTime } : {}),
  } as EewIntensityRegionItem;
}

/** VXSE47 Intensity/Observation: every real-time station, wherever it sits below the prefectures. */
function convertStations(observation: XmlElement): EewIntensityRealtimeStation[] {
  const stations: EewIntensityRealtimeStation[] = [];
  const visit = (element: XmlElement) => {
    for (const child of element.children) {
      if (child.name === 'IntensityStation') {
        stations.push({
          ...codeName(child),
          int: (child.child('Int')?.text.trim() ?? '') as EewIntensityClass,
          k: child.child('K')?.text.trim() ?? '',
        });
      } else if (child.name !== 'CodeDefine') visit(child);
    }
  };
  visit(observation);
  return stations;
}

function convertComments(comments: XmlElement | undefined): EewComments | undefined {
  if (!comments) return undefined;
  const out: EewComments = {};
  const free = comments.child('FreeFormComment')?.text.trim();
  if (free) out.free = free;
  const warning = convertCodedComment(comments.all('WarningComment'));
  if (warning) out.warning = warning;
  return Object.keys(out).length > 0 ? out : undefined;
}
