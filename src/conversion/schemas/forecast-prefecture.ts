import type { ForecastPrefecture } from '@dmdata/telegram-json-types';
import { buildDocument } from '../head.ts';
import { codeName, timeDefines } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type BodyVPFD51 = ForecastPrefecture.v1_0_0.PublicBodyVPFD51;
type BodyVPFW50 = ForecastPrefecture.v1_0_0.PublicBodyVPFW50;

/**
 * 府県天気予報（Ｒ１） (VPFD51) and 府県週間天気予報 (VPFW50) → forecast-prefecture 1.0.0
 * (docs/conversion/forecast-prefecture.md). Every `TimeSeriesInfo` of the 区域予報 infos becomes a
 * `region.timeSeries` entry and every one of the 地点予報 infos a `station.timeSeries` entry, in
 * document order; each kind is read from the `Type` of its properties.
 */
export const forecastPrefecture: Converter = {
  schema: { type: 'forecast-prefecture', version: '1.0.0' },
  convert(source) {
    const infos = source.report.child('Body')?.all('MeteorologicalInfos') ?? [];
    const ofType = (type: string) => infos.filter((info) => info.attr('type') === type);
    const series = (type: string) =>
      ofType(type).flatMap((info) => info.all('TimeSeriesInfo').map(timeSeries));
    const region = { timeSeries: series('区域予報') };
    const station = { timeSeries: series('地点予報') };
    if (source.type === 'VPFW50') {
      const body = {
        region,
        station,
        reference: {
          timeSeries: series('日別平年値'),
          statistics: ofType('７日間平年値').flatMap((info) => info.all('MeteorologicalInfo').map(statistic)),
        },
      } as unknown as BodyVPFW50;
      return buildDocument(source, this.schema, body);
    }
    const additions = ofType('独自予報').flatMap((info) =>
      info.all('MeteorologicalInfo').map(additionForecast),
    );
    const body = {
      region,
      station,
      ...(additions.length > 0 ? { additionForecasts: additions } : {}),
    } as unknown as BodyVPFD51;
    return buildDocument(source, this.schema, body);
  },
};

/** A text child's trimmed value, or the value and null when the element is empty (`値なし`). */
const valueOf = (element: XmlElement) => {
  const text = element.text.trim();
  return text === '' ? null : text;
};

const refId = (element: XmlElement) => element.attr('refID') ?? '';

/** `{condition}` from the element's attribute, only when written. */
const conditionOf = (element: XmlElement | undefined) => {
  const condition = element?.attr('condition');
  return condition !== undefined ? { condition } : {};
};

/** One time series: its `TimeDefine`s (DateTime, and Duration/Name when written) and its items. */
function timeSeries(info: XmlElement) {
  return {
    timeDefines: timeDefines(info, true),
    items: info.all('Item').map((item) => ({
      ...codeName(item.child('Area') ?? item.child('Station')),
      kinds: item.all('Kind').map(kind),
    })),
  };
}

const STATION_DAY_TYPES = new Set(['日中の最高気温', '最高気温', '朝の最低気温']);

/** One `Kind`, by the `Type` of its properties. */
function kind(element: XmlElement): object {
  const properties = element.all('Property');
  const types = properties.map((property) => trimmedText(property.child('Type')));
  const first = properties[0];
  switch (types[0]) {
    case '天気':
      return weatherKind(first!);
    case '風':
      return { type: '風', details: detailParts(first!, 'WindForecastPart', windDirection) };
    case '波':
      return { type: '波', details: detailParts(first!, 'WaveHeightForecastPart', waveHeight) };
    case '降水確率':
      return {
        type: '降水確率',
        probabilities: parts(first!, 'ProbabilityOfPrecipitationPart').map((p) => ({
          refId: refId(p),
          type: p.attr('type') ?? '',
          unit: p.attr('unit') ?? '%',
          value: valueOf(p),
          ...conditionOf(p),
        })),
      };
    case '信頼度':
      return {
        type: '信頼度',
        reliabilityClasses: parts(first!, 'ReliabilityClassPart').map((r) => ({
          refId: refId(r),
          type: r.attr('type') ?? '信頼度階級',
          value: valueOf(r),
          ...conditionOf(r),
        })),
      };
    case '３時間内卓越天気':
      return {
        type: '３時間内卓越天気',
        weathers: parts(first!, 'WeatherPart').map((w) => ({ refId: refId(w), name: trimmedText(w) })),
      };
    case '３時間内代表風':
      return threeHourWind(first!);
    case '３時間毎気温':
      return { type: '３時間毎気温', temperatures: temperatures(properties) };
    case '最低気温平年値':
    case '最高気温平年値':
      return {
        type: '最低・最高気温平年値',
        averageMinimums: temperatures(properties.filter((_, i) => types[i] === '最低気温平年値')),
        averageMaximums: temperatures(properties.filter((_, i) => types[i] === '最高気温平年値')),
      };
    case '最低気温':
    case '最高気温':
    case '最低気温予測範囲':
    case '最高気温予測範囲':
      if (!types.every((type) => STATION_DAY_TYPES.has(type))) return weekTemperatures(properties);
      return { type: '気温', temperatures: temperatures(properties) };
    case '日中の最高気温':
    case '朝の最低気温':
      return { type: '気温', temperatures: temperatures(properties) };
    default:
      // A kind the schema does not describe: its type alone, which the schema check then refuses.
      return { type: types[0] ?? '' };
  }
}

/** The elements of a property's `…Part` child, in document order. */
const parts = (property: XmlElement, partName: string) => property.child(partName)?.children ?? [];

/** Every `Temperature` of the properties, in document order: `{refId, type, unit, value}`. */
const temperatures = (properties: XmlElement[]) =>
  properties.flatMap((property) =>
    parts(property, 'TemperaturePart').map((t) => ({
      refId: refId(t),
      type: t.attr('type') ?? '',
      unit: t.attr('unit') ?? '度',
      value: valueOf(t),
      ...conditionOf(t),
    })),
  );

/** 天気: the telop weathers (`WeatherPart` with the `WeatherCodePart` code of the same time), and the forecast sentences when written. */
function weatherKind(property: XmlElement) {
  const codes = new Map(parts(property, 'WeatherCodePart').map((code) => [refId(code), trimmedText(code)]));
  const weathers = parts(property, 'WeatherPart').map((w) => ({
    refId: refId(w),
    code: codes.get(refId(w)) ?? '',
    name: trimmedText(w),
  }));
  const detail = property.child('DetailForecast');
  if (!detail) return { type: '天気', weathers };
  return {
    type: '天気',
    weathers,
    details: detail.all('WeatherForecastPart').map((part) => {
      const subArea = part.child('SubArea');
      return {
        refId: refId(part),
        text: trimmedText(part.child('Sentence')),
        ...changes(part, (element) => {
          const weather = element.child('Weather');
          return { name: trimmedText(weather), ...conditionOf(weather) };
        }),
        ...(subArea ? { subArea: { text: trimmedText(subArea.child('Sentence')) } } : {}),
      };
    }),
  };
}

/**
 * `base`, `temporaries` and `becomings` of a forecast part (or of its `SubArea`): each with its
 * `TimeModifier` when written and what `read` takes from the element.
 */
function changes(part: XmlElement, read: (element: XmlElement) => object) {
  const change = (element: XmlElement) => {
    const modifier = element.child('TimeModifier');
    return { ...(modifier ? { timeModifier: trimmedText(modifier) } : {}), ...read(element) };
  };
  const base = part.child('Base');
  const temporaries = part.all('Temporary').map(change);
  const becomings = part.all('Becoming').map(change);
  return {
    ...(base ? { base: change(base) } : {}),
    ...(temporaries.length > 0 ? { temporaries } : {}),
    ...(becomings.length > 0 ? { becomings } : {}),
  };
}

const windDirection = (element: XmlElement) => {
  const direction = element.child('WindDirection');
  return {
    direction: {
      type: direction?.attr('type') ?? '風向',
      unit: direction?.attr('unit') ?? '８方位漢字',
      value: direction ? valueOf(direction) : null,
      ...conditionOf(direction),
    },
  };
};

const waveHeight = (element: XmlElement) => {
  const height = element.child('WaveHeight');
  return {
    height: {
      type: height?.attr('type') ?? '波高',
      unit: height?.attr('unit') ?? 'm',
      value: height ? valueOf(height) : null,
      ...conditionOf(height),
    },
  };
};

/** 風 and 波 sentences: per part its text, changes and the `SubArea` (its `AreaName` and changes). */
function detailParts(property: XmlElement, partName: string, read: (element: XmlElement) => object) {
  return (property.child('DetailForecast')?.all(partName) ?? []).map((part) => {
    const subArea = part.child('SubArea');
    return {
      refId: refId(part),
      text: trimmedText(part.child('Sentence')),
      ...changes(part, read),
      ...(subArea
        ? { subArea: { name: trimmedText(subArea.child('AreaName')), ...changes(subArea, read) } }
        : {}),
    };
  });
}

/** ３時間内代表風: directions and speed levels; the level's `range` attribute is "from to" or "from" alone (and over). */
function threeHourWind(property: XmlElement) {
  return {
    type: '３時間内代表風',
    directions: parts(property, 'WindDirectionPart').map((d) => ({
      refId: refId(d),
      type: d.attr('type') ?? '風向',
      unit: d.attr('unit') ?? '８方位漢字',
      value: trimmedText(d),
    })),
    speedLevels: parts(property, 'WindSpeedPart').map((level) => {
      const [from = '', to = 'over'] = (level.attr('range') ?? '').split(/\s+/u).filter(Boolean);
      return {
        refId: refId(level),
        type: level.attr('type') ?? '風速階級',
        value: trimmedText(level),
        range: { type: '風速階級の範囲', unit: 'm/s', from, to },
      };
    }),
  };
}

/**
 * 最低・最高気温 of the week forecast: each value with its predicted range from the
 * `…予測範囲（下端）` (`from`) and `（上端）` (`to`) elements of the same time; a time without a value
 * has `value`, `from`, `to` null and `condition: 値なし`.
 */
function weekTemperatures(properties: XmlElement[]) {
  const all = properties.flatMap((property) => parts(property, 'TemperaturePart'));
  const ranges = new Map<string, XmlElement>();
  for (const t of all) {
    const type = t.attr('type') ?? '';
    if (type.includes('予測範囲')) ranges.set(`${type}|${refId(t)}`, t);
  }
  const entries = (type: '最低気温' | '最高気温') =>
    all
      .filter((t) => t.attr('type') === type)
      .map((t) => {
        const bound = (end: string) => {
          const element = ranges.get(`${type}予測範囲（${end}）|${refId(t)}`);
          return element ? valueOf(element) : null;
        };
        return {
          refId: refId(t),
          type,
          unit: t.attr('unit') ?? '度',
          value: valueOf(t),
          range: { type: `${type}予測範囲`, unit: '度', from: bound('下端'), to: bound('上端') },
          ...conditionOf(t),
        };
      });
  return { type: '最低・最高気温', minimums: entries('最低気温'), maximums: entries('最高気温') };
}

/** A `MeteorologicalInfo`'s period: `DateTime` and `Duration`. */
const period = (info: XmlElement) => ({
  dateTime: { value: trimmedText(info.child('DateTime')) },
  duration: trimmedText(info.child('Duration')),
});

/** ７日間平年値: per station the thresholds of the 7-day precipitation classes, in document order. */
function statistic(info: XmlElement) {
  return {
    type: '７日間平年値',
    period: period(info),
    stations: info.all('Item').map((item) => {
      const property = item.at('Kind/Property');
      return {
        ...codeName(item.child('Station')),
        type: trimmedText(property?.child('Type')),
        thresholds: (property?.child('PrecipitationClassPart')?.children ?? []).map((threshold) => ({
          type: threshold.attr('type') ?? '',
          unit: threshold.attr('unit') ?? 'mm',
          value: trimmedText(threshold),
        })),
      };
    }),
  };
}

/** 独自予報: its period and, per area, the free text of the property. */
function additionForecast(info: XmlElement) {
  return {
    type: '独自予報',
    period: period(info),
    items: info.all('Item').map((item) => ({
      ...codeName(item.child('Area')),
      text: trimmedText(item.at('Kind/Property/Text')),
    })),
  };
}
