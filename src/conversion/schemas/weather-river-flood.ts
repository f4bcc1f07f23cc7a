import type { WeatherRiverFlood } from '@dmdata/telegram-json-types';
import { documentConverter } from '../head.ts';
import { codeName, joinedNotices, timeDefines } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = WeatherRiverFlood.v1_0_0.PublicBody;
type MainText = WeatherRiverFlood.v1_0_0.MainText;
type Supposition = WeatherRiverFlood.v1_0_0.Supposition;
type SuppositionDistrict = WeatherRiverFlood.v1_0_0.SuppositionDistrict;
type Rainfall = WeatherRiverFlood.v1_0_0.Rainfall;
type WaterLevel = WeatherRiverFlood.v1_0_0.WaterLevel;
type WaterLevelItem = WeatherRiverFlood.v1_0_0.WaterLevelTimeSeriesItem;
type FloodedWater = WeatherRiverFlood.v1_0_0.FloodedWater;
type Office = WeatherRiverFlood.v1_0_0.Office;
type Reference = WeatherRiverFlood.v1_0_0.Reference;

/** 指定河川洪水予報 (VXKO50–89, title code VXKOii) → weather-river-flood 1.0.0 (docs/conversion/weather-river-flood.md). */
export const weatherRiverFlood = documentConverter(
  { type: 'weather-river-flood', version: '1.0.0' },
  convertBody,
);

function convertBody(source: ConversionSource): PublicBody {
  const body = source.report.child('Body');
  const items = body?.all('Warning').flatMap((warning) => warning.all('Item')) ?? [];
  const propertyType = (item: XmlElement) => trimmedText(item.at('Kind/Property/Type'));
  const infos = (type: string) => body?.all('MeteorologicalInfos').find((i) => i.attr('type') === type);
  const notice = joinedNotices(body);
  const mainTexts = items.filter((item) => propertyType(item) === '主文').map(convertMainText);
  const suppositionItem = items.find((item) => propertyType(item).startsWith('浸水想定地区'));
  const rainfall = infos('雨量情報');
  const waterLevel = infos('水位・流量情報');
  const floodedWaters = infos('氾濫水の予報')?.all('MeteorologicalInfo').flatMap(convertFloodedWaters) ?? [];
  const offices = body?.at('OfficeInfo')?.all('Office').map(convertOffice) ?? [];
  const reference =
    body?.at('AdditionalInfo/FloodForecastAddition')?.all('HydrometricStationPart').map(convertReference) ??
    [];
  return {
    ...(notice !== undefined ? { notice } : {}),
    target: convertTarget(source.report),
    ...(mainTexts.length > 0 ? { mainTexts } : {}),
    ...(suppositionItem ? { supposition: convertSupposition(suppositionItem) } : {}),
    ...(rainfall ? { rainfall: convertRainfall(rainfall) } : {}),
    ...(waterLevel ? { waterLevel: convertWaterLevel(waterLevel) } : {}),
    ...(floodedWaters.length > 0 ? { floodedWaters } : {}),
    ...(offices.length > 0 ? { offices } : {}),
    ...(reference.length > 0 ? { reference } : {}),
  };
}

/** The forecast district and kind: the head's `Information type="指定河川洪水予報（予報区域）"` (the body does not repeat them). */
function convertTarget(report: XmlElement): PublicBody['target'] {
  const item = report
    .at('Head/Headline')
    ?.all('Information')
    .find((info) => info.attr('type') === '指定河川洪水予報（予報区域）')
    ?.child('Item');
  const kind = item?.child('Kind');
  return {
    ...codeName(item?.at('Areas/Area')),
    kind: { ...codeName(kind), condition: trimmedText(kind?.child('Condition')) },
  };
}

const station = (element: XmlElement) => ({
  ...codeName(element),
  location: trimmedText(element.child('Location')),
});

function convertMainText(item: XmlElement): MainText {
  const text = trimmedText(item.at('Kind/Property/Text'));
  return {
    text: text === '' ? null : text,
    rivers: (item.child('Areas')?.all('Area') ?? []).map((area) => codeName(area)),
    stations: (item.child('Stations')?.all('Station') ?? []).map(station),
  };
}

/** 浸水想定地区: observation stations (with their code) or districts, each with prefecture and city. */
function convertSupposition(item: XmlElement): Supposition {
  const kind = item.child('Kind');
  const optional = (element: XmlElement | undefined) => {
    const text = trimmedText(element);
    return text === '' ? null : text;
  };
  return {
    type: trimmedText(kind?.at('Property/Type')) as Supposition['type'],
    description: trimmedText(kind?.at('Property/Text')),
    kind: codeName(kind),
    districts: (item.child('Areas')?.all('Area') ?? []).map((area): SuppositionDistrict => {
      const code = trimmedText(area.child('Code'));
      return {
        ...(code !== '' ? { code } : {}),
        name: trimmedText(area.child('Name')),
        prefecture: {
          code: optional(area.child('PrefectureCode')),
          name: optional(area.child('Prefecture')),
        },
        city: { code: optional(area.child('CityCode')), name: optional(area.child('City')) },
        district: optional(area.child('SubCityList')),
      };
    }),
  };
}

/** JMA writes rainfall in ミリ; the schema's unit is mm. */
const unitOf = (element: XmlElement) => {
  const unit = element.attr('unit') ?? '';
  return unit === 'ミリ' ? 'mm' : unit;
};

const valueOf = (element: XmlElement | undefined) => {
  const value = trimmedText(element);
  return value === '' ? null : value;
};

function convertRainfall(infos: XmlElement): Rainfall {
  const info = infos.child('MeteorologicalInfo');
  return {
    dateTime: trimmedText(info?.child('DateTime')),
    text: trimmedText(info?.at('Item/Kind/Property/Text')),
    timeSeries: infos.all('TimeSeriesInfo').map((series) => ({
      timeDefines: timeDefines(series) as Rainfall['timeSeries'][number]['timeDefines'],
      items: series.all('Item').map((item) => ({
        name: trimmedText(item.at('Area/Name')),
        forecasts: (item.at('Kind/Property/PrecipitationPart')?.all('Precipitation') ?? []).map((p) => ({
          refId: p.attr('refID') ?? '',
          unit: unitOf(p),
          value: valueOf(p),
        })),
      })),
    })),
  };
}

/**
 * 水位・流量情報: per station the observed and forecast values, each paired with the level (`type="レベル"`)
 * of the same time id.
 */
function convertWaterLevel(infos: XmlElement): WaterLevel {
  return {
    timeSeries: infos.all('TimeSeriesInfo').map((series) => ({
      timeDefines: timeDefines(series).map(({ duration: _, ...define }) => define),
      items: series.all('Item').map((item): WaterLevelItem => {
        const property = item.at('Kind/Property');
        const values = property?.children.flatMap((part) => part.children) ?? [];
        const levels = new Map(
          values.filter((v) => v.attr('type') === 'レベル').map((v) => [v.attr('refID') ?? '', valueOf(v)]),
        );
        const stationElement = item.child('Station');
        return {
          ...(stationElement ? station(stationElement) : { code: '', name: '', location: '' }),
          type: trimmedText(property?.child('Type')) as WaterLevelItem['type'],
          forecasts: values
            .filter((v) => v.attr('type') !== 'レベル' && v.attr('refID') !== undefined)
            .map((v) => {
              const refId = v.attr('refID') ?? '';
              const condition = v.attr('condition');
              return {
                refId,
                unit: unitOf(v),
                value: valueOf(v),
                level: levels.get(refId) ?? null,
                ...(condition !== undefined ? { condition } : {}),
              };
            }),
        };
      }),
    })),
  };
}

/** 氾濫水の予報: one entry per `FloodAssumptionTable` (a river), its areas with arrival times and depths. */
function convertFloodedWaters(info: XmlElement): FloodedWater[] {
  const dateTime = trimmedText(info.child('DateTime'));
  return info.all('Item').flatMap((item) => {
    const property = item.at('Kind/Property');
    const text = trimmedText(property?.child('Text'));
    return (property?.all('FloodAssumptionTable') ?? []).map((table) => ({
      ...codeName(table.child('Area')),
      dateTime,
      text,
      assumptions: table.all('FloodAssumptionPart').map((part) => {
        const depths = part.all('FloodDepth');
        const bound = (name: string) => valueOf(depths.find((d) => d.attr('bound') === name));
        const time = (element: XmlElement | undefined) => ({
          value: trimmedText(element),
          dubious: (element?.attr('dubious') ?? '頃') as '頃',
        });
        return {
          district: valueOf(part.child('FloodAssumptionArea')),
          attainmentTime: time(part.child('AttainmentTime')),
          attainmentDeepestTime: time(part.child('AttainmentDeepestTime')),
          floodDepth: { from: bound('以上'), to: bound('未満') },
        };
      }),
    }));
  });
}

function convertOffice(office: XmlElement): Office {
  return {
    type: (office.attr('type') ?? '') as Office['type'],
    ...codeName(office),
    contact: trimmedText(office.child('ContactInfo')),
    url: trimmedText(office.child('URI')),
  };
}

/** A station's charge sections and its water-level criteria (`AdditionalInfo/FloodForecastAddition`). */
function convertReference(part: XmlElement): Reference {
  const area = part.child('Area');
  return {
    ...codeName(area),
    location: trimmedText(area?.child('Location')),
    district: valueOf(area?.child('SubCityList')),
    sections: part.all('ChargeSection').map((section) => section.text.trim()),
    criteria: (part.child('Criteria')?.children ?? []).map((criterion) => ({
      type: criterion.attr('type') ?? '',
      unit: unitOf(criterion),
      value: valueOf(criterion),
      condition: (criterion.attr('condition') ?? '') as '有効' | '無効',
    })),
  };
}
