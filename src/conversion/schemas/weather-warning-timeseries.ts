import { documentConverter } from '../head.ts';
import { codeName, notes, timeDefines } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

/**
 * 気象警報・注意報時系列情報（Ｒ０６） (VPWP50) → weather-warning-timeseries 1.0.0
 * (docs/conversion/weather-warning-timeseries.md).
 */
export const weatherWarningTimeseries = documentConverter(
  { type: 'weather-warning-timeseries', version: '1.0.0' },
  convertBody,
);

function convertBody(source: ConversionSource): object {
  const infos = source.report.at('Body/MeteorologicalInfos');
  return {
    city: {
      type: infos?.attr('type') ?? '量的予想時系列（市町村等）',
      timeSeries: (infos?.all('TimeSeriesInfo') ?? []).map(convertTimeSeries),
    },
  };
}

function convertTimeSeries(info: XmlElement): object {
  return {
    timeDefines: timeDefines(info),
    items: info.all('Item').map(convertItem),
  };
}

/**
 * One municipality. Its `dateTime` (which the schema requires and the XML does not give per
 * municipality) is the newest issue time of its kinds.
 */
function convertItem(item: XmlElement): object {
  const kinds = item.all('Kind').map((kind) => ({
    status: trimmedText(kind.child('Status')),
    dateTime: trimmedText(kind.child('DateTime')),
    properties: kind.all('Property').map(convertProperty),
  }));
  const newest = kinds.reduce(
    (latest, kind) =>
      latest === '' || Date.parse(kind.dateTime) > Date.parse(latest) ? kind.dateTime : latest,
    '',
  );
  return { ...codeName(item.child('Area')), kinds, dateTime: newest };
}

/** Part element → JSON key and whether the property repeats it (then an array). */
const PARTS: Readonly<Record<string, { key: string; repeated: boolean }>> = {
  SignificancyPart: { key: 'significancyPart', repeated: false },
  PrecipitationPart: { key: 'precipitationParts', repeated: true },
  WindDirectionPart: { key: 'windDirectionPart', repeated: false },
  WindSpeedPart: { key: 'windSpeedPart', repeated: false },
  WaveHeightPart: { key: 'waveHeightPart', repeated: false },
  TidalLevelPart: { key: 'tidalLevelPart', repeated: false },
  SnowfallDepthPart: { key: 'snowfallDepthPart', repeated: false },
  HumidityPart: { key: 'humidityParts', repeated: true },
};

/** Value element → the array of the base or local that lists it. */
const SERIES: Readonly<Record<string, string>> = {
  Significancy: 'significances',
  Precipitation: 'precipitations',
  WindDirection: 'directions',
  WindSpeed: 'speeds',
  WaveHeight: 'waveHeights',
  TidalLevel: 'tidalLevels',
  SnowfallDepth: 'snowfallDepths',
  Humidity: 'humidities',
};

function convertProperty(property: XmlElement): object {
  const converted: Record<string, unknown> = { type: trimmedText(property.child('Type')) };
  for (const part of property.children) {
    const target = PARTS[part.name];
    if (target === undefined) continue;
    const value = { base: placeSeries(part.child('Base')) };
    if (!target.repeated) converted[target.key] = value;
    else ((converted[target.key] ??= []) as unknown[]).push(value);
  }
  return converted;
}

/** A base: the series for the whole municipality, or `locals` (one per `Local`, named by `AreaName`). */
function placeSeries(element: XmlElement | undefined): object {
  const locals = element?.all('Local') ?? [];
  if (locals.length === 0) return series(element);
  return {
    locals: locals.map((local) => ({ name: trimmedText(local.child('AreaName')), ...series(local) })),
  };
}

function series(element: XmlElement | undefined): Record<string, unknown> {
  const out: Record<string, unknown[] | string[]> = {};
  for (const child of element?.children ?? []) {
    const key = SERIES[child.name];
    if (key !== undefined) ((out[key] ??= []) as unknown[]).push(timedValue(child));
    else if (child.name === 'Addition') out.additions = notes(child) ?? [];
  }
  return out;
}

/**
 * One value at a time id: a risk level (type attribute, code, name) or a `jmx_eb` quantity (type
 * and unit attributes, the value as written or null, the `condition` attribute when given). A value
 * JMA leaves empty without a condition (`description="値なし"`) has the condition 値なし, as the field
 * definitions say ("値がない場合に `値なし` を記載する").
 */
function timedValue(element: XmlElement): object {
  const refId = element.attr('refID') ?? '';
  if (element.name === 'Significancy')
    return { refId, type: element.attr('type') ?? '', ...codeName(element) };
  const value = element.text.trim();
  const condition = element.attr('condition') ?? (value === '' ? '値なし' : undefined);
  return {
    refId,
    type: element.attr('type') ?? '',
    unit: element.attr('unit') ?? '',
    value: value === '' ? null : value,
    ...(condition !== undefined ? { condition } : {}),
  };
}
