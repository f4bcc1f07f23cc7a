import type { WeatherCommentary } from '@dmdata/telegram-json-types';
import { buildDocument } from '../head.ts';
import { timeDefines } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = WeatherCommentary.v1_0_0.PublicBody;

/**
 * 気象防災速報 and 気象解説情報 (VPBS50, VPBS51, VPZJ51, VPCJ51, VPFJ51, VMCJ53–56) →
 * weather-commentary 1.0.0 (docs/conversion/weather-commentary.md). The body mirrors the XML:
 * one section per `MeteorologicalInfos`, its `MeteorologicalInfo`s as `infos` and its
 * `TimeSeriesInfo`s as `timeSeries`, items → kinds → properties → parts. A cancellation (取消) has
 * the same body (the package's schema lacks 取消: src/conversion/schema-amendments.ts).
 */
export const weatherCommentary: Converter = {
  schema: { type: 'weather-commentary', version: '1.0.0' },
  convert(source) {
    const body: Record<string, unknown> = {
      informationTags: (source.report.child('Head')?.child('Headline')?.all('Information') ?? [])
        .filter((information) => information.attr('type') === '情報タグ')
        .flatMap((information) => information.all('Item').map(informationTag)),
    };
    for (const infos of source.report.child('Body')?.all('MeteorologicalInfos') ?? []) {
      const type = infos.attr('type') ?? '';
      const key = SECTIONS[type];
      if (key !== undefined) body[key] = section(type, infos);
    }
    return buildDocument(source, this.schema, body as unknown as PublicBody);
  },
};

/** `MeteorologicalInfos` type → body field. */
const SECTIONS: Readonly<Record<string, string>> = {
  概況: 'weatherSummary',
  観測実況: 'observation',
  予想: 'forecast',
  防災事項: 'disasterPreventionInfo',
  付加情報: 'additionalInfo',
};

/** Sections made of one sentence, which the schema repeats as `text`. */
const SENTENCE_SECTIONS = new Set(['概況', '防災事項', '付加情報']);

const splitWords = (element: XmlElement | undefined) => trimmedText(element).split(/\s+/u).filter(Boolean);

/** One 情報タグ item: the tags, typhoon and tropical-cyclone numbers (`Kind/Condition` by `Kind/Name`), the areas. */
function informationTag(item: XmlElement) {
  /** The words of the `Condition` of the kind with this `Name`; undefined when there is no such kind. */
  const words = (name: string) => {
    const kind = item.all('Kind').find((k) => trimmedText(k.child('Name')) === name);
    return kind ? splitWords(kind.child('Condition')) : undefined;
  };
  const typhoons = words('台風番号');
  const cyclones = words('TC番号');
  return {
    tagNames: words('情報タグ') ?? [],
    ...(typhoons ? { typhoonNumbers: typhoons } : {}),
    ...(cyclones ? { tcNumbers: cyclones } : {}),
    areas: item.all('Areas').flatMap((areas) =>
      areas.all('Area').map((area) => ({
        code: trimmedText(area.child('Code')),
        codeType: areas.attr('codeType') ?? '',
        name: trimmedText(area.child('Name')),
      })),
    ),
  };
}

function section(type: string, infos: XmlElement) {
  const infoList = infos.all('MeteorologicalInfo').map((info) => ({
    dateTime: trimmedText(info.child('DateTime')),
    items: info.all('Item').map((item) => convertItem(item, type, false)),
  }));
  const series = infos.all('TimeSeriesInfo').map((info) => ({
    timeDefines: timeDefines(info),
    items: info.all('Item').map((item) => convertItem(item, type, true)),
  }));
  if (SENTENCE_SECTIONS.has(type)) {
    const texts = infos
      .all('MeteorologicalInfo')
      .flatMap((info) =>
        info
          .all('Item')
          .flatMap((item) =>
            item
              .all('Kind')
              .flatMap((kind) => kind.all('Property').flatMap((property) => property.all('Text'))),
          ),
      );
    return { type, infos: infoList, text: texts.map((text) => text.text).join('\n') };
  }
  return {
    type,
    ...(infoList.length > 0 ? { infos: infoList } : {}),
    ...(series.length > 0 ? { timeSeries: series } : {}),
  };
}

/**
 * An item: its area (`Area`: code, `codeType`, name, and in a time series the `CodeList` as
 * `codes`; `Status` when written) or station (`Station`: code, the code's `type`, name,
 * `Location`), then its kinds. A sentence item has neither.
 */
function convertItem(item: XmlElement, section: string, inSeries: boolean) {
  const area = item.child('Area');
  const station = item.child('Station');
  const kinds = item.all('Kind').map((kind) => ({
    properties: kind.all('Property').map((property) => convertProperty(property, section, inSeries)),
  }));
  if (area) {
    const code = area.child('Code');
    const codes = splitWords(area.child('CodeList'));
    const status = area.child('Status');
    return {
      ...(code ? { code: trimmedText(code) } : {}),
      codeType: area.attr('codeType') ?? '',
      name: trimmedText(area.child('Name')),
      ...(inSeries && codes.length > 0 ? { codes } : {}),
      ...(status ? { status: trimmedText(status) } : {}),
      kinds,
    };
  }
  if (station) {
    const code = station.child('Code');
    return {
      code: trimmedText(code),
      codeType: code?.attr('type') ?? '',
      name: trimmedText(station.child('Name')),
      location: trimmedText(station.child('Location')),
      kinds,
    };
  }
  return { kinds };
}

/** XML part element → property field; the ones the schema wraps in a one-element array are listed in ARRAY_PARTS. */
const PARTS: Readonly<Record<string, string>> = {
  PrecipitationPart: 'precipitationParts',
  SnowfallDepthPart: 'snowfallDepthPart',
  SnowDepthPart: 'snowDepthPart',
  WindPart: 'windPart',
  WindDirectionPart: 'windDirectionPart',
  WindSpeedPart: 'windSpeedPart',
  EventPart: 'eventPart',
  VisibilityPart: 'visibilityPart',
  TidalLevelPart: 'tidalLevelPart',
  TemperaturePart: 'temperaturePart',
  HumidityPart: 'humidityParts',
  WaveHeightPart: 'waveHeightPart',
  SignificancyPart: 'significancyPart',
};
const ARRAY_PARTS = new Set(['PrecipitationPart', 'HumidityPart']);

/**
 * The kind of a property carrying an `EventPart`, by section: the field definitions list
 * `eventPart` under 気象現象の予想／気象現象の実況 alone. JMA writes the 線状降水帯 forecasts of
 * 気象解説情報 (VPZJ51 全般気象解説情報（線状降水帯半日前予測）) under `Type` 雨の予想.
 */
const EVENT_KINDS: ReadonlyMap<string, string> = new Map([
  ['予想', '気象現象の予想'],
  ['観測実況', '気象現象の実況'],
]);

/**
 * A property: its `Type` (for one carrying an `EventPart`, the event kind of its section), its
 * `Text`s (`type`, `refId` when written, text as written), then its parts.
 */
function convertProperty(property: XmlElement, section: string, inSeries: boolean) {
  const out: Record<string, unknown> = { type: trimmedText(property.child('Type')) };
  const texts = property.all('Text').map((text) => {
    const refId = text.attr('refID');
    return { ...(refId !== undefined ? { refId } : {}), type: text.attr('type') ?? '', text: text.text };
  });
  if (texts.length > 0) out.texts = texts;
  for (const child of property.children) {
    if (child.name === 'PossibilityRankOfWarningPart') {
      out.possibilityRankOfWarnings = child.children.map((value) => valueElement(value, inSeries));
      continue;
    }
    const key = PARTS[child.name];
    if (key === undefined) continue;
    const part = container(child, inSeries);
    out[key] = ARRAY_PARTS.has(child.name) ? [part] : part;
  }
  const eventKind = EVENT_KINDS.get(section);
  if (out.eventPart !== undefined && eventKind !== undefined) out.type = eventKind;
  return out;
}

/**
 * Value elements → `[single field, time-series field]`. In a `MeteorologicalInfo` a part holds
 * one value (the single field; 降雪量 is a one-element array there too), in a time series or a
 * tidal sequence the plural field holds every value with its `refId`.
 */
const VALUES: Readonly<Record<string, readonly [string, string]>> = {
  Precipitation: ['precipitation', 'precipitations'],
  SnowfallDepth: ['snowfallDepths', 'snowfallDepths'],
  SnowDepth: ['snowDepth', 'snowDepths'],
  WindDirection: ['direction', 'directions'],
  WindSpeed: ['speed', 'speeds'],
  Visibility: ['visibility', 'visibilities'],
  WaveHeight: ['waveHeight', 'waveHeights'],
  TidalLevel: ['tidalLevel', 'tidalLevels'],
  TidalPeriod: ['tidalPeriod', 'tidalPeriods'],
  Temperature: ['temperature', 'temperatures'],
  Humidity: ['humidity', 'humidities'],
  Event: ['event', 'events'],
  Significancy: ['significancy', 'significances'],
};
const ALWAYS_ARRAY = new Set(['snowfallDepths']);

/** Plain child elements of a part and the fields they feed. */
const FIELDS: Readonly<Record<string, string>> = {
  Sentence: 'sentence',
  TimeModifier: 'timeModifier',
  AreaName: 'name',
  Time: 'time',
  Remark: 'remark',
};

/**
 * A part or one of its pieces (`Base`, `Becoming`, `Local`, `Sequence`), in document order:
 * sentences and times as fields, values by VALUES, `Base` → `base`, `Becoming` → `becomings[]`,
 * `Local` → `locals[]` (its `AreaName` as `name`), `Sequence` → `sequences[]` with its `refId`.
 */
function container(element: XmlElement, inSeries: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const push = (key: string, value: unknown) => ((out[key] ??= []) as unknown[]).push(value);
  for (const child of element.children) {
    const field = FIELDS[child.name];
    if (field !== undefined) {
      out[field] = trimmedText(child);
      continue;
    }
    const keys = VALUES[child.name];
    if (keys !== undefined) {
      const plural = inSeries || element.name === 'Sequence';
      const key = plural ? keys[1] : keys[0];
      const value = valueElement(child, inSeries);
      if (plural || ALWAYS_ARRAY.has(key)) push(key, value);
      else out[key] = value;
      continue;
    }
    if (child.name === 'Base') out.base = container(child, inSeries);
    else if (child.name === 'Becoming') push('becomings', container(child, inSeries));
    else if (child.name === 'Local') push('locals', container(child, inSeries));
    else if (child.name === 'Sequence')
      push('sequences', { refId: child.attr('refID') ?? '', ...container(child, inSeries) });
  }
  return out;
}

/** Children of structured values (事象, 危険度) and their fields. */
const VALUE_FIELDS: Readonly<Record<string, string>> = {
  Sentence: 'sentence',
  EventName: 'eventName',
  EventClass: 'eventClass',
  Time: 'time',
  Duration: 'duration',
  Code: 'code',
  Name: 'name',
};

/**
 * Conditions the field definitions name otherwise: a wave height with swell is `うねり`
 * ("うねりがある場合は `うねり`"), which JMA's October 2024 samples write `うねりを伴う`.
 */
const CONDITIONS: ReadonlyMap<string, string> = new Map([['うねりを伴う', 'うねり']]);

/**
 * One value: `refId` when written in a time series (a `MeteorologicalInfo` has no times to refer
 * to, and its single values have no `refId` in the field definitions), `type`, then either the
 * fields of its child elements (事象, 危険度) or `unit` (when written), `value` (null when empty) and
 * `condition`: the attribute when written (in the field definitions' words, CONDITIONS), else
 * 値なし for an empty value, as the field definitions say ("値がない場合に `値なし` を記載する").
 */
function valueElement(element: XmlElement, inSeries: boolean) {
  const refId = inSeries ? element.attr('refID') : undefined;
  const head = { ...(refId !== undefined ? { refId } : {}), type: element.attr('type') ?? '' };
  if (element.children.length > 0) {
    const fields: Record<string, string> = {};
    for (const child of element.children) {
      const field = VALUE_FIELDS[child.name];
      if (field !== undefined) fields[field] = trimmedText(child);
    }
    return { ...head, ...fields };
  }
  const unit = element.attr('unit');
  const text = element.text.trim();
  const written = element.attr('condition');
  const condition =
    written !== undefined ? (CONDITIONS.get(written) ?? written) : text === '' ? '値なし' : undefined;
  return {
    ...head,
    ...(unit !== undefined ? { unit } : {}),
    value: text === '' ? null : text,
    ...(condition !== undefined ? { condition } : {}),
  };
}
