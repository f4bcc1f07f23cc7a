import type { TsunamiInformation } from '@dmdata/telegram-json-types';
import { convertCodedComment } from '../coded-comment.ts';
import { convertEarthquake } from '../earthquake.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter, SchemaRef } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

type Body = Exclude<TsunamiInformation.v1_1_0.Main, TsunamiInformation.v1_1_0.Cancel>['body'];
type Forecast = TsunamiInformation.v1_1_0.TsunamiForecastVXSE51;
type ForecastFirstHeight = TsunamiInformation.v1_1_0.TsunamiForecastFirstHeight;
type ForecastMaxHeight = TsunamiInformation.v1_1_0.TsunamiForecastMaxHeight;
type ForecastHeight = TsunamiInformation.v1_1_0.TsunamiForecastMaxHeightValue;
type ForecastStation = TsunamiInformation.v1_1_0.TsunamiForecastStation;
type Observation = TsunamiInformation.v1_1_0.TsunamiObservation;
type ObservationStation = TsunamiInformation.v1_1_0.TsunamiObservationStation;
type ObservationFirstHeight = TsunamiInformation.v1_1_0.TsunamiObservationStationFirstHeight;
type ObservationMaxHeight = TsunamiInformation.v1_1_0.TsunamiObservationStationMaxHeight;
type ObservationHeight = TsunamiInformation.v1_1_0.TsunamiObservationStationMaxHeightValue;
type Estimation = TsunamiInformation.v1_1_0.TsunamiEstimation;
type EstimationFirstHeight = TsunamiInformation.v1_1_0.TsunamiEstimationFirstHeight;
type EstimationMaxHeight = TsunamiInformation.v1_1_0.TsunamiEstimationMaxHeight;
type Comment = TsunamiInformation.v1_1_0.Comment;
type Revise = '追加' | '更新';

const schema: SchemaRef = { type: 'tsunami-information', version: '1.1.0' };

/** JMA's data-missing mark (欠測), written alone or after a condition and an ideographic space. */
const MISSING = '欠測';

/** Older arrival wording (still in JMA's 2011 samples) and the schema's word for it. */
const ARRIVAL_CONDITION_RENAMES: Readonly<Record<string, string>> = {
  既に津波到達と推測: '津波到達中と推測',
};

/** Qualitative forecast heights: the TsunamiHeight description when its value is NaN. */
const QUALITATIVE_HEIGHTS = new Set(['巨大', '高い']);

/** Trimmed text of a child element; undefined when the child is absent or empty. */
function childText(element: XmlElement | undefined, name: string): string | undefined {
  const text = element?.child(name)?.text.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** The `Revise` flag of a FirstHeight/MaxHeight element, as an optional `revise` field. */
function revise(element: XmlElement): { revise?: Revise } {
  const value = childText(element, 'Revise');
  return value !== undefined ? { revise: value as Revise } : {};
}

/** `Condition` split on white space: JMA appends 欠測 to a condition after an ideographic space. */
function conditionParts(element: XmlElement): { condition?: string; missing: boolean } {
  const parts = (childText(element, 'Condition') ?? '').split(/\s+/u).filter(Boolean);
  const condition = parts.find((part) => part !== MISSING);
  return { ...(condition !== undefined ? { condition } : {}), missing: parts.includes(MISSING) };
}

const codeName = (element: XmlElement | undefined) => ({
  code: childText(element, 'Code') ?? '',
  name: childText(element, 'Name') ?? '',
});

/**
 * tsunami-information 1.1.0 (docs/conversion/tsunami-information.md): VTSE41 forecasts, VTSE51
 * forecasts with tide stations and coastal observations, VTSE52 offshore observations and coastal
 * estimations, the earthquakes, free text and comments; a cancellation carries only `text`.
 */
export const tsunamiInformation: Converter = {
  schema,
  convert(source: ConversionSource) {
    const body = source.report.child('Body');
    // Free text as written: the official conversion keeps its line breaks, the last one included.
    const written = body?.child('Text')?.text;
    const text = written?.trim() ? written : undefined;
    if (childText(source.report.child('Head'), 'InfoType') === '取消') {
      return buildDocument(source, schema, { text: text ?? '' });
    }
    const comments = convertComments(body?.child('Comments'));
    const converted = {
      tsunami: convertTsunami(body?.child('Tsunami'), source.type === 'VTSE52'),
      earthquakes: (body?.all('Earthquake') ?? []).map(convertEarthquake),
      ...(text !== undefined ? { text } : {}),
      ...(comments !== undefined ? { comments } : {}),
    } as Body;
    return buildDocument(source, schema, converted);
  },
};

function convertTsunami(tsunami: XmlElement | undefined, offshore: boolean): Body['tsunami'] {
  const observation = tsunami?.child('Observation');
  const observations = observation?.all('Item').map(convertObservation);
  if (offshore) {
    return {
      observations: observations ?? [],
      estimations: (tsunami?.allAt('Estimation/Item') ?? []).map(convertEstimation),
    } as Body['tsunami'];
  }
  return {
    forecasts: (tsunami?.allAt('Forecast/Item') ?? []).map(convertForecast),
    ...(observations !== undefined ? { observations } : {}),
  } as Body['tsunami'];
}

function convertForecast(item: XmlElement): Forecast {
  const category = item.child('Category');
  const firstHeight = item.child('FirstHeight');
  const maxHeight = item.child('MaxHeight');
  const stations = item.all('Station');
  return {
    ...codeName(item.child('Area')),
    kind: { ...codeName(category?.child('Kind')), lastKind: codeName(category?.child('LastKind')) },
    ...(firstHeight ? { firstHeight: convertArrival(firstHeight) } : {}),
    ...(maxHeight?.child('TsunamiHeight') ? { maxHeight: convertForecastMaxHeight(maxHeight) } : {}),
    ...(stations.length > 0 ? { stations: stations.map(convertForecastStation) } : {}),
  };
}

function convertForecastStation(station: XmlElement): ForecastStation {
  const firstHeight = station.child('FirstHeight');
  return {
    ...codeName(station),
    highTideDateTime: childText(station, 'HighTideDateTime') ?? '',
    firstHeight: firstHeight ? convertArrival(firstHeight) : ({} as ForecastFirstHeight),
  };
}

/** Expected arrival of the first wave at a forecast area or tide station. */
function convertArrival(firstHeight: XmlElement): ForecastFirstHeight {
  const arrivalTime = childText(firstHeight, 'ArrivalTime');
  const written = childText(firstHeight, 'Condition');
  const condition = written !== undefined ? (ARRIVAL_CONDITION_RENAMES[written] ?? written) : undefined;
  return {
    ...(arrivalTime !== undefined ? { arrivalTime } : {}),
    ...(condition !== undefined ? { condition } : {}),
    ...revise(firstHeight),
  } as ForecastFirstHeight;
}

function convertForecastMaxHeight(maxHeight: XmlElement): ForecastMaxHeight {
  const { condition } = conditionParts(maxHeight);
  return {
    height: convertForecastHeight(maxHeight.child('TsunamiHeight')!),
    ...(condition === '重要' ? { condition } : {}),
    ...revise(maxHeight),
  };
}

/**
 * A forecast or estimated height: the number as written, `over` for `１０ｍ超`; NaN becomes
 * `value: null` with the qualitative description (巨大, 高い) as condition when there is one.
 */
function convertForecastHeight(height: XmlElement): ForecastHeight {
  const value = height.text.trim();
  const description = height.attr('description') ?? '';
  if (value === '' || value === 'NaN') {
    const condition = QUALITATIVE_HEIGHTS.has(description) ? (description as '巨大' | '高い') : undefined;
    return { type: '津波の高さ', unit: 'm', value: null, ...(condition ? { condition } : {}) };
  }
  // Keys in the production service's order: `over` before the value.
  return { type: '津波の高さ', unit: 'm', ...(description.endsWith('超') ? { over: true } : {}), value };
}

function convertObservation(item: XmlElement): Observation {
  const area = item.child('Area');
  return {
    code: childText(area, 'Code') ?? null,
    name: childText(area, 'Name') ?? null,
    stations: item.all('Station').map(convertObservationStation),
  };
}

function convertObservationStation(station: XmlElement): ObservationStation {
  const sensor = childText(station, 'Sensor');
  const firstHeight = station.child('FirstHeight');
  const maxHeight = station.child('MaxHeight');
  const convertedMax = maxHeight ? convertObservedMaxHeight(maxHeight) : undefined;
  return {
    ...codeName(station),
    ...(sensor !== undefined ? { sensor } : {}),
    firstHeight: firstHeight ? convertObservedFirstHeight(firstHeight) : { status: MISSING },
    ...(convertedMax !== undefined ? { maxHeight: convertedMax } : {}),
  };
}

/** Observed first wave: time and polarity, 第１波識別不能, or 欠測 (status only). */
function convertObservedFirstHeight(firstHeight: XmlElement): ObservationFirstHeight {
  const { condition, missing } = conditionParts(firstHeight);
  if (missing && condition === undefined) return { status: MISSING };
  const arrivalTime = childText(firstHeight, 'ArrivalTime');
  const initial = childText(firstHeight, 'Initial');
  return {
    ...(arrivalTime !== undefined ? { arrivalTime } : {}),
    ...(initial !== undefined ? { initial } : {}),
    ...(condition !== undefined ? { condition } : {}),
    ...revise(firstHeight),
  } as ObservationFirstHeight;
}

/**
 * Observed maximum so far: time and height (`over` for `２．８ｍ以上`, 上昇中 as the height's
 * condition), 重要/微弱/観測中 as condition, and `status: 欠測` when JMA marks the data missing;
 * an element holding nothing but 欠測 is `{status: 欠測}`.
 */
function convertObservedMaxHeight(maxHeight: XmlElement): ObservationMaxHeight | undefined {
  const { condition, missing } = conditionParts(maxHeight);
  const dateTime = childText(maxHeight, 'DateTime');
  const height = maxHeight.child('TsunamiHeight');
  if (dateTime === undefined && height === undefined && condition === undefined) {
    return missing ? { status: MISSING } : undefined;
  }
  return {
    ...(dateTime !== undefined ? { dateTime } : {}),
    ...(height !== undefined ? { height: convertObservedHeight(height) } : {}),
    ...(condition !== undefined ? { condition } : {}),
    ...revise(maxHeight),
    ...(missing ? { status: MISSING } : {}),
  } as ObservationMaxHeight;
}

function convertObservedHeight(height: XmlElement): ObservationHeight {
  const description = height.attr('description') ?? '';
  // Keys in the production service's order.
  return {
    type: 'これまでの最大波の高さ',
    value: height.text.trim(),
    ...(description.endsWith('以上') ? { over: true as const } : {}),
    unit: 'm',
    ...(height.attr('condition') === '上昇中' ? { condition: '上昇中' as const } : {}),
  };
}

function convertEstimation(item: XmlElement): Estimation {
  const firstHeight = item.child('FirstHeight');
  const arrivalTime = childText(firstHeight, 'ArrivalTime');
  // JMA adds the Condition only when the coast may be reached before the estimated time.
  const condition = childText(firstHeight, 'Condition') as EstimationFirstHeight['condition'] | undefined;
  const converted = {
    ...(arrivalTime !== undefined ? { arrivalTime } : {}),
    ...(condition !== undefined ? { condition } : {}),
    ...(firstHeight ? revise(firstHeight) : {}),
  } as EstimationFirstHeight;
  const maxHeight = item.child('MaxHeight');
  return {
    ...codeName(item.child('Area')),
    firstHeight: converted,
    maxHeight: maxHeight ? convertEstimatedMaxHeight(maxHeight, arrivalTime) : { condition: '推定中' },
  };
}

/**
 * Estimated maximum: 推定中 while the estimate is pending, else time, height and 重要. Schema
 * 1.1.0 requires the time with a height (the coast's estimated arrival time); when the XML gives
 * none, the estimated first-wave arrival at that coast stands in for it.
 */
function convertEstimatedMaxHeight(
  maxHeight: XmlElement,
  arrivalTime: string | undefined,
): EstimationMaxHeight {
  const { condition } = conditionParts(maxHeight);
  const height = maxHeight.child('TsunamiHeight');
  if (condition === '推定中' || height === undefined) return { condition: '推定中', ...revise(maxHeight) };
  const dateTime = childText(maxHeight, 'DateTime') ?? arrivalTime;
  return {
    ...(dateTime !== undefined ? { dateTime } : {}),
    height: convertForecastHeight(height),
    ...(condition === '重要' ? { condition } : {}),
    ...revise(maxHeight),
  } as EstimationMaxHeight;
}

function convertComments(comments: XmlElement | undefined): Comment | undefined {
  const free = childText(comments, 'FreeFormComment');
  const warning = convertCodedComment(comments?.all('WarningComment') ?? []);
  if (free === undefined && warning === undefined) return undefined;
  return { ...(free !== undefined ? { free } : {}), ...(warning !== undefined ? { warning } : {}) };
}
