import type { ForecastWeathermap } from '@dmdata/telegram-json-types';
import { parseIso6709 } from '../coordinate.ts';
import { buildDocument } from '../head.ts';
import { withFullYear } from '../typhoon-number.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type WeatherMap = ForecastWeathermap.v1_0_0.WeatherMap;
type SevereWeather = ForecastWeathermap.v1_0_0.SevereWeather;

/**
 * 天気図情報: 地上実況図 (VZSA50), アジア太平洋地上実況図 (VZSA60), 地上２４・４８時間予想図
 * (VZSF50, VZSF51), アジア太平洋海上悪天２４・４８時間予想図 (VZSF60, VZSF61) →
 * forecast-weathermap 1.0.0 (docs/conversion/forecast-weathermap.md).
 */
export const forecastWeathermap: Converter = {
  schema: { type: 'forecast-weathermap', version: '1.0.0' },
  convert(source) {
    const infos = source.report.child('Body')?.all('MeteorologicalInfos') ?? [];
    const mapInfo = infos.find((i) => i.attr('type') !== '悪天情報')?.child('MeteorologicalInfo');
    const severeInfo = infos.find((i) => i.attr('type') === '悪天情報')?.child('MeteorologicalInfo');
    const reportDateTime = source.report.textAt('Head/ReportDateTime')?.trim() ?? '';
    const body = {
      weathermap: {
        ...timeOf(mapInfo),
        items: (mapInfo?.all('Item') ?? []).map((item) => convertMapItem(item, reportDateTime)),
      } as WeatherMap,
      ...(severeInfo
        ? {
            severeWeather: {
              ...timeOf(severeInfo),
              items: severeInfo.all('Item').map(convertSevereItem),
            } as SevereWeather,
          }
        : {}),
    };
    return buildDocument(source, this.schema, body);
  },
};

/** Full-width letters, digits and spaces as ASCII (`ＳＬＷ` → `SLW`, `ＡＬＭＯＳＴ ＳＴＮＲ` → `ALMOST STNR`). */
const ascii = (text: string) =>
  text.replace(/[！-～]/gu, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/gu, ' ');

/** `type` (実況 or 予想) and `elapsedTime` from `DateTime/@type` (`２４時間…` → PT24H), and `dateTime`. */
function timeOf(info: XmlElement | undefined) {
  const dateTime = info?.child('DateTime');
  const written = ascii(dateTime?.attr('type') ?? '');
  const hours = /(\d+)時間/u.exec(written)?.[1];
  return {
    type: written.startsWith('実況') ? '実況' : '予想',
    elapsedTime: `PT${hours === undefined ? '0' : String(Number(hours))}H`,
    dateTime: trimmedText(dateTime),
  };
}

const POINT = /([+-][\d.]+)([+-][\d.]+)/g;

/**
 * A line or a list of points in degrees (`+lat+lon/+lat+lon/…`, JMA's `位置（度）` and `前線（度）`)
 * → `[[lat, lon], …]` as numbers. One pass over the text: isobar lines hold thousands of points.
 */
function points(text: string): [number, number][] {
  return Array.from(text.matchAll(POINT), (m) => [Number(m[1]), Number(m[2])] as [number, number]);
}

/** The properties of an Item, by type. */
const properties = (item: XmlElement) => item.all('Kind').flatMap((kind) => kind.all('Property'));

function convertMapItem(item: XmlElement, reportDateTime: string) {
  const all = properties(item);
  const type = trimmedText(all[0]?.child('Type'));
  if (type === '等圧線') {
    const part = all[0]?.child('IsobarPart');
    return {
      type,
      kinds: [
        {
          type,
          pressure: pressureOf(part?.child('Pressure')),
          line: points(trimmedText(part?.child('Line'))),
        },
      ],
    };
  }
  if (type.endsWith('前線')) {
    return { type, kinds: [{ type, line: points(trimmedText(all[0]?.at('CoordinatePart/Line'))) }] };
  }
  const center = all.find((p) => p.child('CenterPart'))?.child('CenterPart');
  const centerKind = { type, ...convertCenter(center) };
  if (type !== '台風') return { type, kinds: [centerKind] };
  const windPart = all.find((p) => p.child('WindPart'))?.child('WindPart');
  const namePart = all.find((p) => p.child('TyphoonNamePart'))?.child('TyphoonNamePart');
  const classText = trimmedText(all.find((p) => p.child('ClassPart'))?.at('ClassPart/TyphoonClass'));
  const classMatch = /^(.+?)\s*[(（](.+)[)）]$/u.exec(classText);
  const optional = (element: XmlElement | undefined) => trimmedText(element) || null;
  return {
    type,
    kinds: [
      centerKind,
      { type: '風', speeds: speedsOf(windPart?.all('WindSpeed') ?? [], '最大風速') },
      {
        type: '呼称',
        text: optional(namePart?.child('Name')),
        kana: optional(namePart?.child('NameKana')),
        number: namePart?.child('Number')?.text.trim()
          ? withFullYear(trimmedText(namePart.child('Number')), reportDateTime)
          : null,
      },
      {
        type: '階級',
        category: classMatch?.[2] ?? null,
        name: classMatch?.[1] ?? (classText || null),
      },
    ],
  };
}

const pressureOf = (element: XmlElement | undefined) => ({
  type: element?.attr('type') ?? '気圧',
  unit: 'hPa',
  value: trimmedText(element),
});

/** A centre: position (`付近` as condition), moving direction (degrees, 不定), speeds (km/h, knot), central pressure. */
function convertCenter(center: XmlElement | undefined) {
  const coordinate = center?.child('Coordinate');
  const point = coordinate ? parseIso6709(coordinate.text) : undefined;
  const condition = coordinate?.attr('condition');
  const direction = center?.child('Direction');
  const directionValue = trimmedText(direction);
  const directionCondition = direction?.attr('condition');
  return {
    coordinate: {
      latitude: point?.latitude ?? { text: '', value: '' },
      longitude: point?.longitude ?? { text: '', value: '' },
      ...(condition ? { condition } : {}),
    },
    direction: {
      type: '移動方向',
      unit: '°',
      value: directionValue || null,
      ...(directionCondition ? { condition: directionCondition } : {}),
    },
    speeds: speedsOf(center?.all('Speed') ?? [], '移動速度'),
    pressure: pressureOf(center?.child('Pressure')),
  };
}

/**
 * Speeds in km/h (or m/s) then knots; a speed with no number (ゆっくり, ほとんど停滞, ＳＬＷ, …) is
 * `value: null` with its description (in ASCII for knots) as condition.
 */
function speedsOf(elements: XmlElement[], type: string) {
  const converted = elements.map((element) => {
    const unit = element.attr('unit') === 'ノット' ? 'knot' : (element.attr('unit') ?? '');
    const value = trimmedText(element);
    const description = element.attr('condition') ?? element.attr('description');
    return {
      type,
      unit,
      value: value || null,
      ...(value === '' && description
        ? { condition: unit === 'knot' ? ascii(description) : description }
        : {}),
    };
  });
  return [...converted.filter((s) => s.unit !== 'knot'), ...converted.filter((s) => s.unit === 'knot')];
}

/** An item of `MeteorologicalInfos[type=悪天情報]`: its kind's name decides the shape. */
function convertSevereItem(item: XmlElement) {
  const type = trimmedText(item.at('Kind/Name'));
  const area = item.child('Area');
  const name = trimmedText(area?.child('Name'));
  if (type === '悪天情報（強風）') {
    const windPart = item.at('Kind/Property/WindPart');
    const degree = windPart?.child('WindDegree');
    const speed =
      windPart?.all('WindSpeed').find((s) => s.attr('unit') === 'ノット') ?? windPart?.child('WindSpeed');
    return {
      type,
      name,
      coordinates: points(trimmedText(area?.child('Coordinate'))).slice(0, 1),
      kinds: [
        {
          type,
          direction: { type: '風向', unit: '°', value: trimmedText(degree) },
          speed: { type: '最大風速', unit: 'knot', value: trimmedText(speed) },
        },
      ],
    };
  }
  if (type === '悪天情報（霧）') {
    const polygon = area?.child('Polygon');
    if (polygon) return { type, name, polygons: [points(trimmedText(polygon))] };
    return { type, name, code: trimmedText(area?.child('Code')) };
  }
  const iceArea = ICE_AREAS[type];
  return { type, name: iceArea ?? name, coordinates: points(trimmedText(area?.child('Coordinate'))) };
}

/**
 * The name of a sea-ice or ice-accretion area, fixed by its type as the field definitions give it
 * (JMA's VZSF60 sample writes `Area/Name` 海氷 where its VZSF61 writes 海氷域).
 */
const ICE_AREAS: Readonly<Record<string, string>> = {
  '悪天情報（海氷）': '海氷域',
  '悪天情報（船体着氷）': '船体着氷域',
};
