import type { WeatherEarly } from '@dmdata/telegram-json-types';
import { writtenText } from '../free-text.ts';
import { documentConverter } from '../head.ts';
import { codeName } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = WeatherEarly.v1_0_0.PublicBody;
type EarlyBase = WeatherEarly.v1_0_0.EarlyBase;

/** 早期天候情報 (VPAW51) → weather-early 1.0.0 (docs/conversion/weather-early.md). */
export const weatherEarly = documentConverter({ type: 'weather-early', version: '1.0.0' }, convertBody);

/** `jmx_eb` element of a significant climate element → its key in `forecasts`. */
const FORECASTS: Readonly<Record<string, string>> = {
  ProbabilityOfSignificantlyAboveNormal: 'probabilityAboveNormal',
  ThresholdOfSignificantlyAboveNormal: 'thresholdAboveNormal',
  ProbabilityOfSignificantlyBelowNormal: 'probabilityBelowNormal',
  ThresholdOfSignificantlyBelowNormal: 'thresholdBelowNormal',
};

function convertBody(source: ConversionSource): object {
  const body = source.report.child('Body');
  const notice = writtenText(body?.child('Notice'));
  const info = body?.at('MeteorologicalInfos/MeteorologicalInfo');
  const dateTime = info?.child('DateTime');
  const duration = trimmedText(info?.child('Duration'));
  const items = info?.all('Item') ?? [];
  const isMainText = (item: XmlElement) => trimmedText(item.at('Kind/Property/Type')) === '本文';
  return {
    ...(notice !== undefined ? { notice } : {}),
    target: codeName(body?.child('TargetArea')),
    targetTime: {
      dateTime: {
        value: trimmedText(dateTime),
        validFormat: dateTime?.attr('significant') ?? '',
        precision: dateTime?.attr('precision') ?? '',
      },
      ...(duration !== '' ? { duration } : {}),
    },
    mainTexts: items.filter(isMainText).map((item) => ({
      text: writtenText(item.at('Kind/Property/Text')) ?? '',
      zones: zones(item),
    })) as PublicBody['mainTexts'],
    early: items.filter((item) => !isMainText(item)).map(convertEarly),
  };
}

const zones = (item: XmlElement) => (item.child('Areas')?.all('Area') ?? []).map((area) => codeName(area));

/** One warned phenomenon: its `Type`, the probability and threshold of the significant climate element, its zones. */
function convertEarly(item: XmlElement): EarlyBase {
  const property = item.at('Kind/Property');
  const forecasts: Record<string, { unit: string; value: string; bound: string }> = {};
  for (const element of property?.at('ClimateFeaturePart/SignificantClimateElement')?.children ?? []) {
    const key = FORECASTS[element.name];
    if (key === undefined) continue;
    forecasts[key] = {
      unit: element.attr('unit') ?? '',
      value: element.text.trim(),
      bound: element.attr('bound') ?? '',
    };
  }
  return { type: trimmedText(property?.child('Type')), forecasts, zones: zones(item) };
}
