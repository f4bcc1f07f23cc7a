import type { WeatherTyphoon } from '@dmdata/telegram-json-types';
import { convertCoordinate, parseIso6709 } from '../coordinate.ts';
import { documentConverter } from '../head.ts';
import { withFullYear } from '../typhoon-number.ts';
import type { ConversionSource } from '../types.ts';
import type { XmlElement } from '../xml-element.ts';

type PublicBody = WeatherTyphoon.v1_0_0.PublicBody;
type RealState = WeatherTyphoon.v1_0_0.RealState;
type Forecast = Exclude<PublicBody['forecasts'][number], RealState>;
type Axis = WeatherTyphoon.v1_0_0.Axis;
type Direction = WeatherTyphoon.v1_0_0.Direction;
type Classification = WeatherTyphoon.v1_0_0.RealStateClassification;

/**
 * 台風解析・予報情報（５日予報） (VPTW60–65, one type per tropical cyclone being tracked) →
 * weather-typhoon 1.0.0 (docs/conversion/weather-typhoon.md).
 */
export const weatherTyphoon = documentConverter({ type: 'weather-typhoon', version: '1.0.0' }, convertBody);

function convertBody(source: ConversionSource): PublicBody {
  const reportDateTime = source.report.textAt('Head/ReportDateTime')?.trim() ?? '';
  const infos = source.report.at('Body/MeteorologicalInfos')?.all('MeteorologicalInfo') ?? [];
  const namePart = infos
    .flatMap((info) => properties(info))
    .find((p) => p.textAt('Type')?.trim() === '呼称')
    ?.child('TyphoonNamePart');
  const number = nonEmptyText(namePart?.child('Number'));
  return {
    typhoon: {
      tcNumber: withFullYear(source.report.textAt('Head/EventID')?.trim() ?? '', reportDateTime),
      name: {
        text: nonEmptyText(namePart?.child('Name')),
        kana: nonEmptyText(namePart?.child('NameKana')),
        number: number === null ? null : withFullYear(number, reportDateTime),
      },
      remark: nonEmptyText(namePart?.child('Remark')) as WeatherTyphoon.v1_0_0.TyphoonRemark,
    },
    forecasts: infos.map(convertInfo) as PublicBody['forecasts'],
  };
}

/** An element's trimmed text; null when it is empty or absent. */
const nonEmptyText = (element: XmlElement | undefined): string | null => {
  const text = element?.text.trim();
  return text ? text : null;
};

/** Every `Item/Kind/Property` of one MeteorologicalInfo. */
const properties = (info: XmlElement): XmlElement[] =>
  (info.child('Item')?.all('Kind') ?? []).flatMap((kind) => kind.all('Property'));

const FULL_WIDTH_DIGITS = /[０-９]/gu;
const halfWidth = (text: string) =>
  text.replace(FULL_WIDTH_DIGITS, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));

/** One analysis or forecast time: `実況`, `推定 １時間後`, `予報 １２時間後` (a full-width space between). */
function convertInfo(info: XmlElement): RealState | Forecast {
  const dateTime = info.child('DateTime');
  const written = halfWidth(dateTime?.attr('type') ?? '');
  const kind = written.split(/\s/u)[0] ?? '';
  const hours = /(\d+)時間後/u.exec(written)?.[1];
  const elapsedTime = `PT${hours === undefined ? '0' : String(Number(hours))}H`;
  const property = (type: string) => properties(info).find((p) => p.textAt('Type')?.trim() === type);
  const classPart = property('階級')?.child('ClassPart');
  const centerPart = property('中心')?.child('CenterPart');
  const windProperty = property('風');
  const realState = kind === '実況' || kind === '推定';
  const classification = convertClassification(classPart);
  const common = {
    direction: convertMovingDirection(centerPart?.child('Direction')),
    speed: convertSpeed(centerPart),
    pressure: {
      type: '中心気圧' as const,
      unit: 'hPa' as const,
      value: centerPart?.child('Pressure')?.text.trim() ?? '',
    },
  };
  const location = nonEmptyText(centerPart?.child('Location'));
  const wind = windProperty ? convertWind(windProperty, realState) : undefined;
  if (realState) {
    return {
      type: kind as RealState['type'],
      elapsedTime: elapsedTime as RealState['elapsedTime'],
      dateTime: dateTime?.text.trim() ?? '',
      classification,
      center: { location, coordinate: convertCenter(centerPart), ...common },
      ...(wind ? { wind } : {}),
    } as RealState;
  }
  const circle = centerPart?.child('ProbabilityCircle');
  const { area: _area, ...forecastClassification } = classification;
  return {
    type: kind as Forecast['type'],
    elapsedTime,
    dateTime: dateTime?.text.trim() ?? '',
    classification: forecastClassification,
    center: {
      location,
      probabilityCircle: {
        basePoint: convertCoordinate(preferDegreesMinutes(circle?.all('BasePoint') ?? [])),
        axes: convertAxes(circle),
      },
      ...common,
    },
    ...(wind ? { wind } : {}),
  } as Forecast;
}

/** `台風(TS)` → name 台風, category TS; an empty class is null. */
function convertClassification(classPart: XmlElement | undefined): Classification {
  const written = nonEmptyText(classPart?.child('TyphoonClass'));
  const match = written ? /^(.+?)\s*[(（](.+)[)）]$/u.exec(written) : null;
  return {
    category: (match?.[2] ?? null) as Classification['category'],
    name: (match?.[1] ?? written) as Classification['name'],
    area: nonEmptyText(classPart?.child('AreaClass')) as Classification['area'],
    intensity: nonEmptyText(classPart?.child('IntensityClass')) as Classification['intensity'],
  };
}

/**
 * The centre position: the degrees-and-minutes coordinate (`中心位置（度分）`, as the production
 * service writes it), else the one in degrees; `condition` is JMA's accuracy (正確, ほぼ正確, 不確実).
 */
function convertCenter(centerPart: XmlElement | undefined): WeatherTyphoon.v1_0_0.Coordinate {
  const coordinate = preferDegreesMinutes(centerPart?.all('Coordinate') ?? []);
  const point = coordinate ? parseIso6709(coordinate.text) : undefined;
  if (!point) throw new Error('typhoon centre without a position');
  const condition = coordinate?.attr('condition');
  return {
    latitude: point.latitude,
    longitude: point.longitude,
    ...(condition ? { condition: condition as WeatherTyphoon.v1_0_0.Coordinate['condition'] } : {}),
  };
}

const preferDegreesMinutes = (points: XmlElement[]): XmlElement | undefined =>
  points.find((p) => p.attr('type')?.includes('度分')) ?? points.find((p) => p.text.trim() !== '');

/** Azimuth (degrees from north) of the 16 compass points JMA names. */
const AZIMUTHS: Readonly<Record<string, string>> = {
  北: '0',
  北北東: '22.5',
  北東: '45',
  東北東: '67.5',
  東: '90',
  東南東: '112.5',
  南東: '135',
  南南東: '157.5',
  南: '180',
  南南西: '202.5',
  南西: '225',
  西南西: '247.5',
  西: '270',
  西北西: '292.5',
  北西: '315',
  北北西: '337.5',
};

/** A compass direction: the point as written and its azimuth; none written (全域, 不定) → both null with JMA's condition. */
function convertDirection(direction: XmlElement | undefined, type: string, unit: string): Direction {
  const value = nonEmptyText(direction);
  const condition = direction?.attr('condition');
  return {
    type: direction?.attr('type') ?? type,
    unit: direction?.attr('unit') ?? unit,
    value,
    azimuth: value === null ? null : (AZIMUTHS[value] ?? null),
    ...(condition ? { condition } : {}),
  };
}

const convertMovingDirection = (direction: XmlElement | undefined) =>
  convertDirection(direction, '移動方向', '１６方位漢字');

/** Moving speed in km/h; ゆっくり and ほとんど停滞 have no number (value null with the condition). */
function convertSpeed(centerPart: XmlElement | undefined): WeatherTyphoon.v1_0_0.RealStateCenterSpeed {
  const speed = centerPart?.all('Speed').find((s) => s.attr('unit') === 'km/h');
  const value = nonEmptyText(speed);
  const condition = speed?.attr('condition');
  if (value === null) {
    return {
      type: '移動速度',
      unit: 'km/h',
      value: null,
      condition: (condition ?? 'ほとんど停滞') as 'ゆっくり' | 'ほとんど停滞',
    };
  }
  return { type: '移動速度', unit: 'km/h', value };
}

/**
 * The radii of a circle in km, one per `Axis`; an axis whose radius is `なし` (no such area) is left
 * out, so a missing area is an empty list.
 */
function convertAxes(circle: XmlElement | undefined): Axis[] {
  const axes = circle?.child('Axes')?.all('Axis') ?? [];
  return axes.flatMap((axis) => {
    const radius = axis.all('Radius').find((r) => r.attr('unit') === 'km');
    const value = nonEmptyText(radius);
    if (radius === undefined || value === null) return [];
    return [
      {
        direction: convertDirection(axis.child('Direction'), '方向', '８方位漢字'),
        radius: { type: radius.attr('type') ?? '半径', unit: 'km', value },
      },
    ];
  });
}

/** Maximum and instantaneous wind speed (m/s), and the wind areas of the time's kind. */
function convertWind(property: XmlElement, realState: boolean) {
  const windPart = property.child('WindPart');
  const speed = (type: '最大風速' | '最大瞬間風速') => {
    const element = windPart
      ?.all('WindSpeed')
      .find((w) => w.attr('type') === type && w.attr('unit') === 'm/s');
    return { element, value: element?.text.trim() ?? '' };
  };
  const average = speed('最大風速');
  const averageCondition = average.element?.attr('condition');
  const areaParts = property.all('WarningAreaPart');
  const area = (type: string) => convertAxes(areaParts.find((p) => p.attr('type') === type)?.child('Circle'));
  const wind = {
    average: {
      type: '最大風速' as const,
      unit: 'm/s' as const,
      value: average.value,
      ...(averageCondition ? { condition: averageCondition as '中心付近' | '中心付近を除く' | 'なし' } : {}),
    },
    instantaneous: {
      type: '最大瞬間風速' as const,
      unit: 'm/s' as const,
      value: speed('最大瞬間風速').value,
    },
  };
  if (areaParts.length === 0) return wind;
  return {
    ...wind,
    area: realState
      ? { storm: area('暴風域'), strong: area('強風域') }
      : { stormWarning: area('暴風警戒域') },
  };
}
