import { buildDocument } from '../head.ts';
import { timeDefines } from '../meteorology.ts';
import type { ConversionSource, Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';
import { convertRank } from './forecast-warning-possibility.ts';

/**
 * 警報級の可能性（明日まで） (VPFD60) and （明後日以降） (VPFW60), the telegrams before 早期注意情報
 * (VPFD61) → forecast-warning-possibility 1.0.0 (docs/conversion/forecast-warning-possibility.md).
 */
export const forecastWarningPossibilityLegacy: Converter = {
  schema: { type: 'forecast-warning-possibility', version: '1.0.0' },
  convert(source) {
    return buildDocument(source, this.schema, { timeSeries: convertTimeSeries(source) });
  },
};

const areaOf = (item: XmlElement) => ({
  code: trimmedText(item.at('Area/Code')),
  name: trimmedText(item.at('Area/Name')),
});

/**
 * VPFD60: the 6-hourly forecasts (the `TimeSeriesInfo` with detailed forecasts), the next day's
 * 24-hour maxima (the `MeteorologicalInfo`, one time), then the possibility ranks; VPFW60: the
 * possibility ranks only.
 */
function convertTimeSeries(source: ConversionSource): object[] {
  const infos = source.report.at('Body/MeteorologicalInfos');
  const series = infos?.all('TimeSeriesInfo') ?? [];
  const hasDetails = (info: XmlElement) =>
    info.all('Item').some((item) => item.all('Kind').some((kind) => kind.at('Property/DetailForecast')));
  const detailed = series.filter(hasDetails).map((info) => ({
    timeDefines: timeDefines(info),
    items: info.all('Item').map(convertDetailItem),
  }));
  const daily = (infos?.all('MeteorologicalInfo') ?? []).map((info) => ({
    timeDefines: [
      {
        timeId: '1',
        dateTime: trimmedText(info.child('DateTime')),
        duration: trimmedText(info.child('Duration')),
        name: trimmedText(info.child('Name')),
      },
    ],
    items: info.all('Item').map(convertDetailItem),
  }));
  const ranks = series
    .filter((info) => !hasDetails(info))
    .map((info) => ({
      timeDefines: timeDefines(info).map(({ name, ...define }) => (name ? { ...define, name } : define)),
      items: info.all('Item').map(convertRankItem),
    }));
  return [...detailed, ...daily, ...ranks];
}

function convertRankItem(item: XmlElement) {
  return {
    ...areaOf(item),
    kinds: item.all('Kind').map((kind) => {
      const property = kind.child('Property');
      const text = trimmedText(property?.child('Text'));
      return {
        type: trimmedText(property?.child('Type')),
        ...(text ? { text } : {}),
        possibilityRanks: (
          property?.child('PossibilityRankOfWarningPart')?.all('PossibilityRankOfWarning') ?? []
        ).map(convertRank),
      };
    }),
  };
}

/** The JSON key of each forecast element and its unit when the XML leaves it out. */
const ELEMENTS: Readonly<Record<string, { key: string; unit: string }>> = {
  Precipitation: { key: 'precipitation', unit: 'mm' },
  SnowfallDepth: { key: 'depth', unit: 'cm' },
  WindSpeed: { key: 'speed', unit: 'm/s' },
  WaveHeight: { key: 'height', unit: 'm' },
};

function convertDetailItem(item: XmlElement) {
  return {
    ...areaOf(item),
    kinds: item.all('Kind').map((kind) => {
      const property = kind.child('Property');
      return {
        type: trimmedText(property?.child('Type')),
        details: (property?.child('DetailForecast')?.children ?? []).map(convertDetail),
      };
    }),
  };
}

/**
 * One time of a detailed forecast (`…ForecastPart`): `refId` (`1` for the single daily time), the
 * sentence as `text`, the value for the whole area or per local area (`locals`, `name` null when
 * the area is not divided), and a divided-off area (`SubArea`) when written.
 */
function convertDetail(part: XmlElement) {
  const base = part.child('Base');
  const localAreas = base?.all('Local') ?? [];
  const locals =
    localAreas.length > 0
      ? localAreas.map((local) => ({ name: trimmedText(local.child('AreaName')), ...convertValue(local) }))
      : [{ name: null, ...convertValue(base) }];
  const subArea = part.child('SubArea');
  const subText = trimmedText(subArea?.child('Sentence'));
  return {
    refId: part.attr('refID') ?? '1',
    text: trimmedText(part.child('Sentence')),
    base: { locals },
    ...(subArea
      ? {
          subArea: {
            name: trimmedText(subArea.child('AreaName')),
            ...(subText ? { text: subText } : {}),
            base: convertValue(subArea.child('Base')),
          },
        }
      : {}),
  };
}

/**
 * The forecast value of a Base or Local: one element as `{type, unit, value, condition}` (`value`
 * null when empty), or a range written as two elements (`…（範囲の下端）`, `…（範囲の上端）`) as
 * `{type, range: {type: 範囲, unit, from, to}}`; a range with no values is `value: null` with its
 * condition.
 */
function convertValue(container: XmlElement | undefined): Record<string, object> {
  const elements = (container?.children ?? []).filter((c) => ELEMENTS[c.name]);
  const first = elements[0];
  if (!first) return {};
  const { key, unit: defaultUnit } = ELEMENTS[first.name]!;
  const unit = first.attr('unit') ?? defaultUnit;
  const condition = first.attr('condition');
  const lower = elements.find((e) => e.attr('type')?.endsWith('（範囲の下端）'));
  const upper = elements.find((e) => e.attr('type')?.endsWith('（範囲の上端）'));
  if (lower && upper) {
    const type = (lower.attr('type') ?? '').replace('（範囲の下端）', '');
    const from = lower.text.trim();
    const to = upper.text.trim();
    if (from === '' || to === '') {
      return { [key]: { type, unit, value: null, condition: condition ?? '値なし' } };
    }
    return { [key]: { type, range: { type: '範囲', unit, from, to } } };
  }
  const value = first.text.trim();
  return {
    [key]: {
      type: first.attr('type') ?? '',
      unit,
      value: value === '' ? null : value,
      ...(condition ? { condition } : value === '' ? { condition: '値なし' } : {}),
    },
  };
}
