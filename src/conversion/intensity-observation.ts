import type { EarthquakeInformation } from '@dmdata/telegram-json-types';
import type { XmlElement } from './xml-element.ts';

type IntensityClass = EarthquakeInformation.v1_1_0.IntensityClass;
type LgIntensityClass = EarthquakeInformation.v1_1_0.LgIntensityClass;
type Revise = NonNullable<EarthquakeInformation.v1_1_0.IntensityCity['revise']>;

/** Seismic intensity classes, strongest first (the order of the lists). */
const INTENSITY_ORDER: readonly string[] = ['7', '6+', '6-', '5+', '5-', '4', '3', '2', '1'];
const LG_INTENSITY_CLASSES: ReadonlySet<string> = new Set(['0', '1', '2', '3', '4']);
const REVISIONS: ReadonlySet<string> = new Set(['上方修正', '下方修正', '追加']);
/** JMA's `Int`/`Condition` for a station (or city) expected at 5- or more whose value has not arrived. */
export const NOT_RECEIVED = '震度５弱以上未入電';
/** A station's `int` for NOT_RECEIVED, as production writes it. */
export const NOT_RECEIVED_INT = '!5-';

const trimmedText = (element: XmlElement, name: string) => element.child(name)?.text.trim() ?? '';

function intensityClass(element: XmlElement, name: string): IntensityClass | undefined {
  const text = trimmedText(element, name);
  return INTENSITY_ORDER.includes(text) ? (text as IntensityClass) : undefined;
}

function lgIntensityClass(element: XmlElement, name: string): LgIntensityClass | undefined {
  const text = trimmedText(element, name);
  return LG_INTENSITY_CLASSES.has(text) ? (text as LgIntensityClass) : undefined;
}

function revision(element: XmlElement): Revise | undefined {
  const text = trimmedText(element, 'Revise');
  return REVISIONS.has(text) ? (text as Revise) : undefined;
}

const codeName = (element: XmlElement) => ({
  code: trimmedText(element, 'Code'),
  name: trimmedText(element, 'Name'),
});

const compareCodes = (a: { code: string }, b: { code: string }) =>
  a.code < b.code ? -1 : a.code > b.code ? 1 : 0;

const INTENSITY_RANK: ReadonlyMap<string | undefined, number> = new Map(
  INTENSITY_ORDER.map((int, rank) => [int, rank]),
);

/** Position in INTENSITY_ORDER; `!5-` and no intensity after every class. */
const intensityRank = (int: string | undefined) => INTENSITY_RANK.get(int) ?? INTENSITY_ORDER.length;

/**
 * The items strongest first (by the given intensity), then by code. Each item's rank is computed
 * once, not at every comparison: the lists of a large earthquake hold thousands of entries.
 */
function sortByIntensityThenCode<T extends { code: string }>(
  items: T[],
  intensity: (item: T) => string | undefined,
): T[] {
  const keyed = items.map((item) => ({ rank: intensityRank(intensity(item)), code: item.code, item }));
  keyed.sort((a, b) => a.rank - b.rank || compareCodes(a, b));
  return keyed.map((entry) => entry.item);
}

/** Pref, Area or City with its maximum intensity and revision (`condition` only for cities). */
function maxIntArea(element: XmlElement): EarthquakeInformation.v1_1_0.IntensityCity {
  const out: EarthquakeInformation.v1_1_0.IntensityCity = codeName(element);
  const maxInt = intensityClass(element, 'MaxInt');
  if (maxInt) out.maxInt = maxInt;
  const revise = revision(element);
  if (revise) out.revise = revise;
  return out;
}

function city(element: XmlElement): EarthquakeInformation.v1_1_0.IntensityCity {
  const out = maxIntArea(element);
  if (trimmedText(element, 'Condition') === NOT_RECEIVED) out.condition = NOT_RECEIVED;
  return out;
}

function station(element: XmlElement): EarthquakeInformation.v1_1_0.IntensityStation {
  const int = trimmedText(element, 'Int');
  const notReceived = int === NOT_RECEIVED;
  const out = {
    code: trimmedText(element, 'Code'),
    name: trimmedText(element, 'Name'),
    int: notReceived ? NOT_RECEIVED_INT : int,
  } as EarthquakeInformation.v1_1_0.IntensityStation;
  const revise = revision(element);
  if (revise) out.revise = revise;
  if (notReceived) out.condition = NOT_RECEIVED;
  return out;
}

/** VXSE51 (prefectures and regions) or VXSE53 (also cities and stations) intensity lists. */
export type IntensityObservation =
  EarthquakeInformation.v1_1_0.IntensityVXSE53 | EarthquakeInformation.v1_1_0.IntensityVXSE51;

/**
 * The intensity observation of a VXSE51/VXSE53 `Body/Intensity/Observation`
 * (docs/conversion/earthquake-information.md): the nationwide maximum, then every Pref, Area,
 * City and IntensityStation flattened into one list per level, each sorted strongest first and
 * then by code. `震度５弱以上未入電` becomes `int: "!5-"` with that condition on a station, and the
 * condition on a city; `withCities` adds the city and station lists (VXSE53).
 */
export function convertIntensityObservation(
  observation: XmlElement,
  withCities: boolean,
): IntensityObservation {
  const prefectures: EarthquakeInformation.v1_1_0.IntensityMaxIntOnRevise[] = [];
  const regions: EarthquakeInformation.v1_1_0.IntensityMaxIntOnRevise[] = [];
  const cities: EarthquakeInformation.v1_1_0.IntensityCity[] = [];
  const stations: EarthquakeInformation.v1_1_0.IntensityStation[] = [];
  for (const pref of observation.all('Pref')) {
    prefectures.push(maxIntArea(pref));
    for (const area of pref.all('Area')) {
      regions.push(maxIntArea(area));
      if (!withCities) continue;
      for (const c of area.all('City')) {
        cities.push(city(c));
        for (const s of c.all('IntensityStation')) stations.push(station(s));
      }
    }
  }
  const maxIntOf = (item: EarthquakeInformation.v1_1_0.IntensityMaxIntOnRevise) => item.maxInt;
  const lists = {
    maxInt: intensityClass(observation, 'MaxInt') as IntensityClass,
    prefectures: sortByIntensityThenCode(prefectures, maxIntOf),
    regions: sortByIntensityThenCode(regions, maxIntOf),
  };
  if (!withCities) return lists as EarthquakeInformation.v1_1_0.IntensityVXSE51;
  return {
    ...lists,
    cities: sortByIntensityThenCode(cities, maxIntOf),
    stations: sortByIntensityThenCode(stations, (item) => item.int),
  };
}

function lgArea(element: XmlElement): EarthquakeInformation.v1_1_0.IntensityLgMaxInt {
  const out = { ...codeName(element) } as EarthquakeInformation.v1_1_0.IntensityLgMaxInt;
  const maxInt = intensityClass(element, 'MaxInt');
  if (maxInt) out.maxInt = maxInt;
  out.maxLgInt = lgIntensityClass(element, 'MaxLgInt') as LgIntensityClass;
  const revise = revision(element);
  if (revise) out.revise = revise;
  return out;
}

const unitValue = <U extends string>(element: XmlElement | undefined, unit: U) => ({
  unit: (element?.attr('unit') ?? unit) as U,
  value: element?.text.trim() ?? '',
});

function lgStation(element: XmlElement): EarthquakeInformation.v1_1_0.IntensityLgStation {
  const out = { ...codeName(element) } as EarthquakeInformation.v1_1_0.IntensityLgStation;
  const int = intensityClass(element, 'Int');
  if (int) out.int = int;
  out.lgInt = lgIntensityClass(element, 'LgInt') as LgIntensityClass;
  out.sva = unitValue(element.child('Sva'), 'cm/s');
  const svaByBand = new Map(element.all('SvaPerPeriod').map((sva) => [sva.attr('PeriodicBand'), sva]));
  out.prePeriods = element.all('LgIntPerPeriod').map((lg) => ({
    periodicBand: { unit: (lg.attr('PeriodUnit') ?? '秒台') as '秒台', value: lg.attr('PeriodicBand') ?? '' },
    lgInt: lg.text.trim() as LgIntensityClass,
    sva: unitValue(svaByBand.get(lg.attr('PeriodicBand')), 'cm/s'),
  }));
  const revise = revision(element);
  if (revise) out.revise = revise;
  return out;
}

/**
 * The long-period ground motion observation of a VXSE62 `Body/Intensity/Observation`: maxima and
 * category, prefectures and regions by code, stations (`Pref/Area/IntensityStation`) strongest
 * long-period class first and then by code, each with its absolute velocity response spectrum
 * (`Sva`) and the seven per-period classes and spectra joined on `PeriodicBand`.
 */
export function convertLgIntensityObservation(
  observation: XmlElement,
): EarthquakeInformation.v1_1_0.IntensityVXSE62 {
  const prefectures: EarthquakeInformation.v1_1_0.IntensityLgMaxInt[] = [];
  const regions: EarthquakeInformation.v1_1_0.IntensityLgMaxInt[] = [];
  const stations: EarthquakeInformation.v1_1_0.IntensityLgStation[] = [];
  for (const pref of observation.all('Pref')) {
    prefectures.push(lgArea(pref));
    for (const area of pref.all('Area')) {
      regions.push(lgArea(area));
      for (const s of area.all('IntensityStation')) stations.push(lgStation(s));
    }
  }
  return {
    maxInt: intensityClass(observation, 'MaxInt') as IntensityClass,
    maxLgInt: lgIntensityClass(observation, 'MaxLgInt') as LgIntensityClass,
    lgCategory: trimmedText(observation, 'LgCategory') as EarthquakeInformation.v1_1_0.LgCategory,
    prefectures: prefectures.sort(compareCodes),
    regions: regions.sort(compareCodes),
    stations: stations.sort((a, b) => Number(b.lgInt) - Number(a.lgInt) || compareCodes(a, b)),
  };
}
