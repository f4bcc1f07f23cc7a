import type { WeatherImpactSociety } from '@dmdata/telegram-json-types';
import { writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import { codeName } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type V101 = WeatherImpactSociety.v1_0_1.PublicBody & { season?: WeatherImpactSociety.v1_0_1.Season };
/** 1.0.1's body, or 1.0.0's for VPFI50 (main texts naming prefectures). */
type Body = Omit<V101, 'mainTexts'> & {
  mainTexts: (WeatherImpactSociety.v1_0_1.MainText | WeatherImpactSociety.v1_0_0.MainText)[];
};
type Statistic = WeatherImpactSociety.v1_0_1.Statistic;
type Station = WeatherImpactSociety.v1_0_1.StatisticStation;
type ObservedValue = WeatherImpactSociety.v1_0_1.StatisticStationObservedValue;
type SeasonZone = WeatherImpactSociety.v1_0_1.SeasonZone;
type EventDate = WeatherImpactSociety.v1_0_1.SeasonZoneEventDataDate;

/**
 * 天候情報 (全般天候情報 VPZI50, 地方天候情報 VPCI50, 梅雨の時期に関する情報 included) →
 * weather-impact-society 1.0.1 (docs/conversion/weather-impact-society.md).
 */
export const weatherImpactSociety: Converter = {
  schema: { type: 'weather-impact-society', version: '1.0.1' },
  convert(source) {
    return buildDocument(source, this.schema, convertBody(source.report.child('Body'), CURRENT));
  },
};

/**
 * 府県天候情報 (VPFI50, no longer issued) → weather-impact-society 1.0.0, the version that
 * describes it: its main texts name prefectures instead of zones, and it has no comment.
 */
export const weatherImpactSocietyPrefecture: Converter = {
  schema: { type: 'weather-impact-society', version: '1.0.0' },
  convert(source) {
    return buildDocument(source, this.schema, convertBody(source.report.child('Body'), PREFECTURE));
  },
};

/** How the body of one of the two converters differs. */
interface BodyForm {
  /** The key of a main text's areas. */
  areaKey: 'zones' | 'prefectures';
  /**
   * Whether `comment` carries the 末文 (`Comment/Text` of type 末文): the field definition of the
   * 1.0.1 schema page, for VPZI50 and VPCI50. The production service's VPFI50 conversion writes no
   * comment, its 末文 included (docs/conversion/weather-impact-society.md).
   */
  closingText: boolean;
}
const CURRENT: BodyForm = { areaKey: 'zones', closingText: true };
const PREFECTURE: BodyForm = { areaKey: 'prefectures', closingText: false };

/** Every `Kind/Property` of an Item. */
const properties = (item: XmlElement) => item.all('Kind').flatMap((kind) => kind.all('Property'));

function convertBody(body: XmlElement | undefined, { areaKey, closingText }: BodyForm): Body {
  const infos = body?.child('MeteorologicalInfos')?.all('MeteorologicalInfo') ?? [];
  // The MeteorologicalInfo without a type holds the texts (and the rainy season); the typed ones
  // (気象官署及び特別地域気象観測所, アメダス) hold the statistics.
  const main = infos.find((info) => info.attr('type') === undefined);
  const mainItems = main?.all('Item') ?? [];
  const mainTexts = mainItems.flatMap((item) =>
    properties(item)
      .filter((p) => p.textAt('Type')?.trim() === '本文')
      .map((p) => {
        const text = headedTexts(p.all('Text'));
        const areas = (item.child('Areas')?.all('Area') ?? []).map(codeName);
        return areaKey === 'zones' ? { text, zones: areas } : { text, prefectures: areas };
      }),
  );
  const seasonZones = mainItems.flatMap(convertSeasonZones);
  const statistics = infos.filter((info) => info.attr('type') !== undefined).map(convertStatistic);
  const notice = writtenText(body?.child('Notice'));
  const comment = closingText
    ? writtenText(
        body
          ?.child('Comment')
          ?.all('Text')
          .find((t) => t.attr('type') === '末文'),
      )
    : undefined;
  const duration = main?.textAt('Duration')?.trim();
  return {
    ...(notice !== undefined ? { notice } : {}),
    target: codeName(body?.child('TargetArea')),
    targetTime: {
      dateTime: convertDateTime(main?.child('DateTime')) as { value: string; validFormat: string },
      ...(duration ? { duration } : {}),
    },
    mainTexts,
    ...(seasonZones.length > 0 ? { season: { type: '梅雨' as const, zones: seasonZones } } : {}),
    ...(statistics.length > 0 ? { statistics } : {}),
    ...(comment !== undefined ? { comment } : {}),
  };
}

/**
 * The texts of a 本文 property, each under its heading (`【概況】`, `【今後の見通し】`, … from the
 * `type` attribute; a text without one is the 概況), separated by a blank line.
 */
function headedTexts(texts: XmlElement[]): string {
  return texts
    .filter((t) => t.text.trim() !== '')
    .map((t) => `【${t.attr('type') ?? '概況'}】\n${t.text}`)
    .join('\n\n');
}

/** `{value, validFormat}` of a DateTime; `validFormat` from its `significant` attribute when written. */
function convertDateTime(dateTime: XmlElement | undefined) {
  const significant = dateTime?.attr('significant');
  return { value: trimmedText(dateTime), ...(significant ? { validFormat: significant } : {}) };
}

/** 梅雨入り / 梅雨明け items: one zone per area, with this year's, the normal and last year's dates. */
function convertSeasonZones(item: XmlElement): SeasonZone[] {
  const property = properties(item).find((p) => /^梅雨(入り|明け)$/u.test(p.textAt('Type')?.trim() ?? ''));
  if (!property) return [];
  const part = property.child('EventDatePart');
  const date = (name: string): EventDate | undefined => {
    const element = part?.child(name);
    const value = element?.text.trim();
    return value ? { value, dubious: (element?.attr('dubious') ?? '頃') as '頃' } : undefined;
  };
  const thisYear = date('Date');
  const lastYear = date('LastYear');
  const remark = part?.textAt('Remark')?.trim();
  const eventData = {
    ...(thisYear ? { date: thisYear } : {}),
    normal: date('Normal') ?? { value: '', dubious: '頃' as const },
    ...(lastYear ? { lastYear } : {}),
    ...(remark ? { remark } : {}),
  };
  return (item.child('Areas')?.all('Area') ?? []).map((area) => ({
    ...codeName(area),
    type: property.textAt('Type')?.trim() as SeasonZone['type'],
    eventData,
  }));
}

function convertStatistic(info: XmlElement): Statistic {
  const items = info.all('Item');
  const title = items
    .flatMap((item) => properties(item))
    .flatMap((p) => p.all('Text'))
    .find((t) => t.attr('type') === '表題');
  const text = title?.text.trim();
  return {
    type: info.attr('type') as Statistic['type'],
    period: {
      dateTime: convertDateTime(info.child('DateTime')),
      duration: trimmedText(info.child('Duration')),
      name: trimmedText(info.child('Name')),
    },
    ...(text ? { text } : {}),
    stations: items.filter((item) => item.child('Station')).map(convertStation),
  };
}

function convertStation(item: XmlElement): Station {
  const property = properties(item)[0];
  const parts = property?.all('ClimateValuesPart') ?? [];
  const remark = parts.map((part) => part.textAt('Remark')?.trim()).find(Boolean);
  return {
    ...codeName(item.child('Station')),
    type: (property?.textAt('Type')?.trim() ?? '天候の状況（速報値）') as Station['type'],
    ...(remark ? { remark } : {}),
    observedValues: parts.flatMap((part) =>
      part.children.filter((value) => value.name !== 'Remark').map(convertObservedValue),
    ),
  };
}

/**
 * JMA's unit names written the way the production service writes them: ミリ → mm, ％ → %, and 度 →
 * ° for every value in degrees, temperatures (平均気温, 平均気温平年差) as well as directions.
 */
const UNITS: Readonly<Record<string, string>> = { ミリ: 'mm', '％': '%', 度: '°' };

function convertObservedValue(element: XmlElement): ObservedValue {
  const value = element.text.trim();
  const condition = element.attr('condition');
  const unit = element.attr('unit') ?? '';
  return {
    type: element.attr('type') ?? '',
    unit: UNITS[unit] ?? unit,
    value: value === '' ? null : value,
    ...(condition ? { condition } : {}),
  };
}
