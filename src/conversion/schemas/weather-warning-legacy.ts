import type { WeatherWarning } from '@dmdata/telegram-json-types';
import { writtenText } from '../free-text.ts';
import { documentConverter } from '../head.ts';
import { codeName, joinedNotices, notes, timeDefines, warningAreas } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type Kind = WeatherWarning.v1_0_0.Kind;
type NextKind = WeatherWarning.v1_0_0.KindNextKind;
type TimeSeries = WeatherWarning.v1_0_0.TimeSeries;
type TimeSeriesItemKind = WeatherWarning.v1_0_0.TimeSeriesItemKind;
type RiskDegree = WeatherWarning.v1_0_0.TimeSeriesItemKindRiskDegree;
type RiskDegreeLocal = WeatherWarning.v1_0_0.TimeSeriesItemKindRiskDegreeLocal;
type Quantitative = WeatherWarning.v1_0_0.TimeSeriesItemKindQuantitative;

/**
 * 気象警報・注意報（Ｈ２７） (VPWW54) and 記録的短時間大雨情報 (VPOA50) → weather-warning 1.0.0, the
 * version the production service keeps for these types (docs/conversion/weather-warning.md).
 */
export const weatherWarningLegacy = documentConverter(
  { type: 'weather-warning', version: '1.0.0' },
  convertBody,
);

function convertBody(source: ConversionSource): object {
  const body = source.report.child('Body');
  const notice = joinedNotices(body);
  const warnings = body?.all('Warning') ?? [];
  const withType = (suffix: string) => warnings.find((w) => w.attr('type')?.endsWith(suffix));
  if (source.type === 'VPOA50') {
    return {
      ...(notice !== undefined ? { notice } : {}),
      prefectures: warnings.flatMap((w) => w.all('Item')).map(convertHeavyRainArea),
    };
  }
  const timeSeries = (body?.all('MeteorologicalInfos') ?? [])
    .flatMap((infos) => infos.all('TimeSeriesInfo'))
    .map(convertTimeSeries);
  return {
    ...(notice !== undefined ? { notice } : {}),
    prefectures: warningAreas(withType('（府県予報区等）'), true, convertKind),
    regions: warningAreas(withType('（一次細分区域等）'), true, convertKind),
    areas: warningAreas(withType('（市町村等をまとめた地域等）'), true, convertKind),
    cities: warningAreas(withType('（市町村等）'), false, convertKind),
    ...(timeSeries.length > 0 ? { timeSeries } : {}),
  };
}

/** 記録的短時間大雨情報: one area with its one kind (`発表` or `なし`). */
function convertHeavyRainArea(item: XmlElement) {
  const kind = item.child('Kind');
  const area = item.child('Area');
  return {
    ...codeName(area),
    kinds: [{ ...codeName(kind), status: trimmedText(kind?.child('Status')) }],
  };
}

function convertKind(kind: XmlElement): Kind {
  const condition = trimmedText(kind.child('Condition'));
  const attentions = notes(kind.child('Attention'));
  const additions = notes(kind.child('Addition'));
  const lastKind = kind.child('LastKind');
  const nextKinds = kind.child('NextKinds')?.all('NextKind').map(convertNextKind);
  return {
    ...codeName(kind),
    status: trimmedText(kind.child('Status')) as Kind['status'],
    // attentions before condition: production's key order in every VPWW54 it converted with both
    ...(attentions ? { attentions } : {}),
    ...(condition !== '' ? { condition: condition as Kind['condition'] } : {}),
    ...(additions ? { additions } : {}),
    ...(lastKind ? { lastKind: codeName(lastKind) } : {}),
    ...(nextKinds?.length ? { nextKinds } : {}),
  };
}

function convertNextKind(next: XmlElement): NextKind {
  const condition = trimmedText(next.child('Condition'));
  const dateTime = next.child('DateTime');
  const sentence = writtenText(next.child('Sentence'));
  return {
    ...codeName(next),
    ...(condition !== '' ? { condition: condition as NextKind['condition'] } : {}),
    dateTime: {
      value: trimmedText(dateTime),
      validFormat: dateTime?.attr('significant') ?? '',
      precision: dateTime?.attr('precision') ?? '',
    },
    ...(sentence !== undefined ? { sentence: sentence.trim() } : {}),
  };
}

/** `TimeSeriesInfo`: its time definitions and, per municipality, the kinds' risk and quantitative series. */
function convertTimeSeries(info: XmlElement): TimeSeries {
  return {
    timeDefines: timeDefines(info),
    items: info.all('Item').map((item) => {
      const area = item.child('Area');
      return {
        ...codeName(area),
        kinds: item.all('Kind').map(convertSeriesKind),
      };
    }),
  };
}

function convertSeriesKind(kind: XmlElement): TimeSeriesItemKind {
  const riskDegrees: RiskDegree[] = [];
  const quantitative: Quantitative[] = [];
  for (const property of kind.all('Property')) {
    if (trimmedText(property.child('Type')) === '危険度') {
      const subsequent = property.all('SubsequentSignificancyPart');
      for (const part of property.all('SignificancyPart'))
        riskDegrees.push(convertRiskDegree(part, subsequent));
    } else {
      for (const part of property.children) {
        if (part.name.endsWith('Part')) quantitative.push(...convertQuantitative(part));
      }
    }
  }
  return { ...codeName(kind), riskDegrees, ...(quantitative.length > 0 ? { quantitative } : {}) };
}

/** The places of a `…Part/Base`: its `Local`s, or the base itself (the whole municipality, name null). */
function locals(part: XmlElement): { name: string | null; element: XmlElement }[] {
  const base = part.child('Base');
  if (!base) return [];
  const own = base.all('Local');
  if (own.length === 0) return [{ name: null, element: base }];
  return own.map((local) => ({ name: trimmedText(local.child('AreaName')) || null, element: local }));
}

/** The risk series of one part; `future` from the subsequent part of the same risk type and place. */
function convertRiskDegree(part: XmlElement, subsequent: readonly XmlElement[]): RiskDegree {
  const futureKey = (type: string, name: string | null) => `${type}\u0000${name ?? ''}`;
  const future = new Map(
    subsequent
      .flatMap(locals)
      .map((l) => [futureKey(l.element.child('Significancy')?.attr('type') ?? '', l.name), l.element]),
  );
  let type = '';
  const riskLocals = locals(part).map(({ name, element }): RiskDegreeLocal => {
    const significances = element.all('Significancy');
    type ||= significances[0]?.attr('type') ?? '';
    const peakTime = element.child('PeakTime');
    const date = trimmedText(peakTime?.child('Date'));
    const attentions = notes(element.child('Attention'));
    const additions = notes(element.child('Addition'));
    const later = future.get(futureKey(type, name));
    const laterSignificancy = later?.child('Significancy');
    return {
      name,
      significances: significances.map((s) => ({ refId: s.attr('refID') ?? '', ...codeName(s) })),
      ...(peakTime
        ? { peakTime: { ...(date !== '' ? { date } : {}), term: trimmedText(peakTime.child('Term')) } }
        : {}),
      ...(attentions ? { attentions } : {}),
      ...(additions ? { additions } : {}),
      ...(laterSignificancy
        ? { future: { ...codeName(laterSignificancy), sentence: trimmedText(later?.child('Sentence')) } }
        : {}),
    };
  });
  return { type, locals: riskLocals };
}

/**
 * One quantitative series per element type of the part (`１時間最大雨量` and `３時間最大雨量` share a
 * part), in order of first appearance: a time line where the values refer to time ids, else one
 * value for the whole period.
 */
function convertQuantitative(part: XmlElement): Quantitative[] {
  const places = locals(part);
  const types: string[] = [];
  for (const { element } of places) {
    for (const value of element.children) {
      const type = value.attr('type');
      if (type !== undefined && value.name !== 'AreaName' && !types.includes(type)) types.push(type);
    }
  }
  return types.map((type): Quantitative => {
    const values = places.map(({ name, element }) => ({
      name,
      values: element.children.filter((v) => v.attr('type') === type),
    }));
    const timeline = values.some((place) => place.values.some((v) => v.attr('refID') !== undefined));
    const present = values.filter((place) => place.values.length > 0);
    if (timeline) {
      return {
        type,
        forecastType: 'timeline',
        locals: present.map((place) => ({
          name: place.name,
          forecasts: place.values.map((v) => ({ refId: v.attr('refID') ?? '', ...quantity(v) })),
        })),
      };
    }
    return {
      type,
      forecastType: 'whole',
      locals: present.map((place) => ({ name: place.name, forecast: quantity(place.values[0]!) })),
    } as Quantitative;
  });
}

/**
 * A value as written (JMA's own spacing kept); none → null; the `condition` attribute when given,
 * 値なし included: the production service writes a value JMA marks `condition="値なし"` as
 * `value: null` with `condition: 値なし`, on a time line as for the whole period.
 */
function quantity(value: XmlElement) {
  const condition = value.attr('condition');
  return {
    unit: value.attr('unit') ?? '',
    value: value.text === '' ? null : value.text,
    ...(condition !== undefined ? { condition } : {}),
  } as { unit: string; value: string; condition?: string };
}
