import type { Forecast2weekTemperature } from '@dmdata/telegram-json-types';
import { buildDocument } from '../head.ts';
import { codeName, timeDefines } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = Forecast2weekTemperature.v1_0_0.PublicBody;
type Comparison = Forecast2weekTemperature.v1_0_0.TemperatureComparison;
type ZoneItem = Forecast2weekTemperature.v1_0_0.TimeSeriesZoneItem;
type StationItem = Forecast2weekTemperature.v1_0_0.TimeSeriesStationItem;
type Extreme = '最高気温' | '最低気温';
type StationAverage<T extends Extreme> =
  Forecast2weekTemperature.v1_0_0.TimeSeriesStationItemAverageTemperature<T>;

/**
 * 地方２週間気温予報 (VPCK70) → forecast-2week-temperature 1.0.0
 * (docs/conversion/forecast-2week-temperature.md): the region forecast (`MeteorologicalInfos`
 * 区域予報) as `zone`, the station forecast (地点予報) as `station`, each one time series. A
 * cancellation (取消) has the same body (the package's schema lacks 取消: src/conversion/schema-amendments.ts).
 */
export const forecast2weekTemperature: Converter = {
  schema: { type: 'forecast-2week-temperature', version: '1.0.0' },
  convert(source) {
    return buildDocument(source, this.schema, convertBody(source.report.child('Body')));
  },
};

function convertBody(body: XmlElement | undefined): PublicBody {
  const timeSeriesOf = (type: string) =>
    body
      ?.all('MeteorologicalInfos')
      .find((infos) => infos.attr('type') === type)
      ?.child('TimeSeriesInfo');
  const zone = timeSeriesOf('区域予報');
  const station = timeSeriesOf('地点予報');
  return {
    zone: {
      timeSeries: [{ timeDefines: timeDefines(zone), items: (zone?.all('Item') ?? []).map(zoneItem) }],
    },
    station: {
      timeSeries: [
        { timeDefines: timeDefines(station), items: (station?.all('Item') ?? []).map(stationItem) },
      ],
    },
  };
}

/** The values (`jmx_eb:Temperature`, `jmx_eb:Comparison`) of each `ClimateValuesPart` of an item, by its `type`. */
function partsOf(item: XmlElement): Map<string, readonly XmlElement[]> {
  const parts = new Map<string, readonly XmlElement[]>();
  for (const property of item.child('Kind')?.all('Property') ?? []) {
    for (const part of property.all('ClimateValuesPart')) parts.set(part.attr('type') ?? '', part.children);
  }
  return parts;
}

const comparison = (element: XmlElement): Comparison => ({
  type: (element.attr('type') ?? '') as Comparison['type'],
  value: trimmedText(element) as Comparison['value'],
});

/** A region: its class of the five-day mean temperature for each time (`地域平均気温階級`). */
function zoneItem(item: XmlElement): ZoneItem {
  const kindType = trimmedText(item.at('Kind/Property/Type')) as ZoneItem['kinds'][0]['type'];
  return {
    ...codeName(item.child('Area')),
    kinds: [
      {
        type: kindType,
        average: (partsOf(item).get('地域平均気温階級') ?? []).map((element) => ({
          refId: element.attr('refID') ?? '',
          type: kindType,
          comparison: comparison(element),
        })),
      },
    ],
  };
}

/** A station: the five-day means of the daily maximum and minimum, each with its range and class. */
function stationItem(item: XmlElement): StationItem {
  const station = codeName(item.child('Station'));
  const parts = partsOf(item);
  return {
    ...station,
    kinds: [
      {
        type: '最低・最高平均気温',
        averageMaximums: averages(parts, '最高気温', station.code),
        averageMinimums: averages(parts, '最低気温', station.code),
      },
    ],
  };
}

/**
 * One entry per value of the part named after the element (最高気温, 最低気温), in the XML's order,
 * with the range (`…予測範囲（下端）` → `from`, `…（上端）` → `to`) and the class (`…階級`) of the
 * same `refID`. A value without its range or class is an error: the schema has no place for a gap.
 */
function averages<T extends Extreme>(
  parts: Map<string, readonly XmlElement[]>,
  extreme: T,
  station: string,
): StationAverage<T>[] {
  const companion = (suffix: string, refId: string) => {
    const found = parts.get(`${extreme}${suffix}`)?.find((element) => element.attr('refID') === refId);
    if (!found) throw new Error(`station ${station}: no ${extreme}${suffix} for refID ${refId}`);
    return found;
  };
  return (parts.get(extreme) ?? []).map((element) => {
    const refId = element.attr('refID') ?? '';
    const type = (element.attr('type') ?? '') as StationAverage<T>['type'];
    const [lower, upper] = [companion('予測範囲（下端）', refId), companion('予測範囲（上端）', refId)];
    return {
      refId,
      type,
      unit: (element.attr('unit') ?? '') as '度',
      value: trimmedText(element),
      range: {
        type: `${type}の予測範囲` as StationAverage<T>['range']['type'],
        unit: (lower.attr('unit') ?? '') as '度',
        from: trimmedText(lower),
        to: trimmedText(upper),
      },
      comparison: comparison(companion('階級', refId)),
    };
  });
}
