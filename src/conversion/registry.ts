import { earthquakeCounts } from './schemas/earthquake-counts.ts';
import { earthquakeExplanation } from './schemas/earthquake-explanation.ts';
import { earthquakeNankai } from './schemas/earthquake-nankai.ts';
import { eewInformation } from './schemas/eew-information.ts';
import { forecastWarningPossibility } from './schemas/forecast-warning-possibility.ts';
import { forecastWarningPossibilityLegacy } from './schemas/forecast-warning-possibility-legacy.ts';
import { forecastWeathermap } from './schemas/forecast-weathermap.ts';
import { forecastSeason } from './schemas/forecast-season.ts';
import { forecast2weekTemperature } from './schemas/forecast-2week-temperature.ts';
import { forecastPrefecture } from './schemas/forecast-prefecture.ts';
import { tsunamiInformation } from './schemas/tsunami-information.ts';
import { earthquakeHypocenterUpdate } from './schemas/earthquake-hypocenter-update.ts';
import { earthquakeInformation } from './schemas/earthquake-information.ts';
import { volcanoInformation } from './schemas/volcano-information.ts';
import { weatherEarly } from './schemas/weather-early.ts';
import { weatherLandslide } from './schemas/weather-landslide.ts';
import { weatherRiverFlood } from './schemas/weather-river-flood.ts';
import { weatherTornado } from './schemas/weather-tornado.ts';
import { weatherWarning } from './schemas/weather-warning.ts';
import { weatherWarningLegacy } from './schemas/weather-warning-legacy.ts';
import { weatherWarningTimeseries } from './schemas/weather-warning-timeseries.ts';
import { weatherImpactSociety, weatherImpactSocietyPrefecture } from './schemas/weather-impact-society.ts';
import { weatherInformation } from './schemas/weather-information.ts';
import { weatherCommentary } from './schemas/weather-commentary.ts';
import { weatherTyphoon } from './schemas/weather-typhoon.ts';
import type { Converter } from './types.ts';

/** The same converter for a numbered series of codes (`VXKO50`…`VXKO89`). */
const numbered = (prefix: string, from: number, to: number, converter: Converter) =>
  Object.fromEntries(Array.from({ length: to - from + 1 }, (_, i) => [`${prefix}${from + i}`, converter]));

/**
 * The one table from JMA data type code to its converter and schema version (docs/conversion.md).
 * A type not listed here has no JSON conversion.
 */
const converters: Readonly<Record<string, Converter>> = {
  VXSE56: earthquakeExplanation,
  VXSE60: earthquakeCounts,
  VYSE50: earthquakeNankai,
  VYSE51: earthquakeNankai,
  VYSE52: earthquakeNankai,
  VYSE60: earthquakeNankai,
  VXSE42: eewInformation,
  VXSE43: eewInformation,
  VXSE44: eewInformation,
  VXSE45: eewInformation,
  VXSE47: eewInformation,
  VTSE41: tsunamiInformation,
  VTSE51: tsunamiInformation,
  VTSE52: tsunamiInformation,
  VXSE51: earthquakeInformation,
  VXSE52: earthquakeInformation,
  VXSE53: earthquakeInformation,
  VXSE61: earthquakeHypocenterUpdate,
  VXSE62: earthquakeInformation,
  VZSE40: earthquakeInformation,
  VFVO50: volcanoInformation,
  VFVO51: volcanoInformation,
  VFVO52: volcanoInformation,
  VFVO53: volcanoInformation,
  VFVO54: volcanoInformation,
  VFVO55: volcanoInformation,
  VFVO56: volcanoInformation,
  ...numbered('VFSV', 50, 61, volcanoInformation),
  VFSVii: volcanoInformation,
  VZVO40: volcanoInformation,
  VPWW54: weatherWarningLegacy,
  VPOA50: weatherWarningLegacy,
  VPWW55: weatherWarning,
  VPWW56: weatherWarning,
  VPWW57: weatherWarning,
  VPWW58: weatherWarning,
  VPWW59: weatherWarning,
  VPWW60: weatherWarning,
  VPWW61: weatherWarning,
  VPWS50: weatherWarning,
  VPWP50: weatherWarningTimeseries,
  VXWW50: weatherLandslide,
  ...numbered('VXKO', 50, 89, weatherRiverFlood),
  VXKOii: weatherRiverFlood,
  VPHW51: weatherTornado,
  VPAW51: weatherEarly,
  VPZJ50: weatherInformation,
  VPCJ50: weatherInformation,
  VPFJ50: weatherInformation,
  VPSG50: weatherInformation,
  VPZS50: weatherInformation,
  VPTI50: weatherInformation,
  VPTI51: weatherInformation,
  VPTI52: weatherInformation,
  VPFT50: weatherInformation,
  VMCJ50: weatherInformation,
  VMCJ51: weatherInformation,
  VMCJ52: weatherInformation,
  VPFG50: weatherInformation,
  VPZK70: weatherInformation,
  VPTW60: weatherTyphoon,
  VPTW61: weatherTyphoon,
  VPTW62: weatherTyphoon,
  VPTW63: weatherTyphoon,
  VPTW64: weatherTyphoon,
  VPTW65: weatherTyphoon,
  VPZI50: weatherImpactSociety,
  VPCI50: weatherImpactSociety,
  VPFI50: weatherImpactSocietyPrefecture,
  VPZK50: forecastSeason,
  VPCK50: forecastSeason,
  VPCK70: forecast2weekTemperature,
  VPFD61: forecastWarningPossibility,
  VPFD60: forecastWarningPossibilityLegacy,
  VPFW60: forecastWarningPossibilityLegacy,
  VZSA50: forecastWeathermap,
  VZSA60: forecastWeathermap,
  VZSF50: forecastWeathermap,
  VZSF51: forecastWeathermap,
  VZSF60: forecastWeathermap,
  VZSF61: forecastWeathermap,
  VPFD51: forecastPrefecture,
  VPFW50: forecastPrefecture,
  VPBS50: weatherCommentary,
  VPBS51: weatherCommentary,
  VPZJ51: weatherCommentary,
  VPCJ51: weatherCommentary,
  VPFJ51: weatherCommentary,
  ...numbered('VMCJ', 53, 56, weatherCommentary),
};

export function converterFor(type: string): Converter | undefined {
  return Object.hasOwn(converters, type) ? converters[type] : undefined;
}

/** Every data type code with a converter (for docs, metrics and rebuilds). */
export function convertibleTypes(): string[] {
  return Object.keys(converters).sort();
}
