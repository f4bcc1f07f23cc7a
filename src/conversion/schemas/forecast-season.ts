import type { ForecastSeason } from '@dmdata/telegram-json-types';
import { writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import { codeName, timeDefines } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = ForecastSeason.v1_0_0.PublicBody;
type Season = ForecastSeason.v1_0_0.Season;
type Summary = ForecastSeason.v1_0_0.SeasonSummary;
type Probability = ForecastSeason.v1_0_0.SeasonProbability;
type ClimateKind = Probability['type'];
type TimeSeriesZone = ForecastSeason.v1_0_0.TimeSeriesZone;

const SUMMARY = '出現の可能性が最も大きい天候と、特徴のある気温、降水量等の確率';
const PROBABILITY = '地域・期間平均平年偏差各階級の確率';

/**
 * 季節予報 (全般・地方の１か月予報、３か月予報、暖・寒候期予報: VPZK50, VPCK50) →
 * forecast-season 1.0.0 (docs/conversion/forecast-season.md).
 */
export const forecastSeason: Converter = {
  schema: { type: 'forecast-season', version: '1.0.0' },
  convert(source) {
    return buildDocument(source, this.schema, convertBody(source.report.child('Body')));
  },
};

function convertBody(body: XmlElement | undefined): PublicBody {
  const infos = body?.child('MeteorologicalInfos');
  const notice = writtenText(body?.child('Notice'));
  const timeSeries = (infos?.all('TimeSeriesInfo') ?? []).map(convertTimeSeries);
  const addition = body?.at('AdditionalInfo/ClimateForecastAddition');
  const optionalText = (name: string) => writtenText(addition?.child(name))?.trim() ?? null;
  return {
    ...(notice !== undefined ? { notice } : {}),
    target: codeName(body?.child('TargetArea')),
    seasons: (infos?.all('MeteorologicalInfo') ?? []).map(convertSeason),
    ...(timeSeries.length > 0 ? { timeSeries } : {}),
    forecastAddition: {
      nextForecastSchedules: (addition?.all('NextForecastSchedule') ?? []).map((schedule) => ({
        type: (schedule.attr('target') ?? '') as ForecastSeason.v1_0_0.NextForecastSchedule['type'],
        text: trimmedText(schedule.child('Text')),
        dateTime: trimmedText(schedule.child('DateTime')),
      })),
      scheduleNotice: optionalText('NoticeOfSchedule'),
      additionalNotice: optionalText('AdditionalNotice'),
    },
  };
}

/** The property (first `Kind/Property`) of an Item and its type. */
const propertyOf = (item: XmlElement) => item.at('Kind/Property');
const typeOf = (item: XmlElement) => propertyOf(item)?.textAt('Type')?.trim();
const zonesOf = (item: XmlElement) => (item.child('Areas')?.all('Area') ?? []).map(codeName);

/** One forecast period: its summary item first (or `要素なし`), then one item per probability. */
function convertSeason(info: XmlElement): Season {
  const dateTime = info.child('DateTime');
  const items = info.all('Item');
  const summaryItem = items.find((item) => typeOf(item) === SUMMARY);
  const summaries = summaryItem ? summariesOf(propertyOf(summaryItem)) : [];
  return {
    type: '季節予報',
    period: {
      dateTime: {
        value: trimmedText(dateTime),
        validFormat: (dateTime?.attr('significant') ?? 'yyyy-mm-dd') as 'yyyy-mm-dd',
      },
      duration: trimmedText(info.child('Duration')) as Season['period']['duration'],
      name: trimmedText(info.child('Name')) as Season['period']['name'],
    },
    items: [
      summaryItem
        ? {
            kinds: [{ type: SUMMARY, summaries: summaries.slice(0, 1) as [Summary] | [] }],
            zones: zonesOf(summaryItem) as [ForecastSeason.v1_0_0.SeasonZone],
          }
        : { condition: '要素なし' },
      ...items
        .filter((item) => typeOf(item) === PROBABILITY)
        .map((item) => ({
          kinds: [
            {
              type: PROBABILITY,
              probabilities: probabilitiesOf(propertyOf(item)?.child('ClimateProbabilityValuesPart')).slice(
                0,
                1,
              ) as [Probability],
            },
          ] as [ForecastSeason.v1_0_0.SeasonItemProbabilityKind],
          zones: zonesOf(item) as [ForecastSeason.v1_0_0.SeasonZone],
        })),
    ],
  };
}

/**
 * The summaries of a property's ClimateFeatureParts, one per time in order of first mention (a
 * period without a time series has one, without `refId`). Each text carries its own time: `text`
 * from the `GeneralSituationText` of that `refID`, `significances` from the `Text` of that `refID`
 * in each `SignificantClimateElement` (`type` = its `kind`).
 */
function summariesOf(property: XmlElement | undefined): (Summary & { refId?: string })[] {
  const texts: { refId: string | undefined; kind?: ClimateKind; text: string }[] = [];
  for (const part of property?.all('ClimateFeaturePart') ?? []) {
    for (const element of part.children) {
      if (element.name === 'GeneralSituationText') {
        texts.push({ refId: element.attr('refID'), text: element.text.trim() });
      } else if (element.name === 'SignificantClimateElement') {
        const kind = (element.attr('kind') ?? '') as ClimateKind;
        for (const text of element.all('Text'))
          texts.push({ refId: text.attr('refID'), kind, text: text.text.trim() });
      }
    }
  }
  const refIds = [...new Set(texts.map((t) => t.refId))];
  return refIds.map((refId) => {
    const ofTime = texts.filter((t) => t.refId === refId);
    const text = ofTime.find((t) => t.kind === undefined)?.text;
    return {
      ...(refId !== undefined ? { refId } : {}),
      ...(text ? { text } : {}),
      significances: ofTime
        .filter((t) => t.kind !== undefined)
        .map((t) => ({ type: t.kind!, value: t.text })),
    };
  });
}

/** Probabilities of the three classes, one per `ClimateProbabilityValues` (one per time in a time series). */
function probabilitiesOf(part: XmlElement | undefined): (Probability & { refId?: string })[] {
  return (part?.all('ClimateProbabilityValues') ?? []).map((values) => {
    const kind = (values.attr('kind') ?? '') as ClimateKind;
    const refId = values.attr('refID');
    const [low, high] = kind === '気温' ? ['低い', '高い'] : ['少ない', '多い'];
    const probability = <T extends string>(name: string, type: T) => {
      const element = values.child(name);
      return {
        type,
        unit: '%' as const,
        value: trimmedText(element),
        ...(element?.attr('significant') === 'true' ? { significant: true as const } : {}),
      };
    };
    return {
      ...(refId !== undefined ? { refId } : {}),
      type: kind,
      belowNormal: probability('ProbabilityOfBelowNormal', `平年より${low}確率`),
      norma: probability('ProbabilityOfNormal', '平年並みの確率'),
      aboveNormal: probability('ProbabilityOfAboveNormal', `平年より${high}確率`),
    } as Probability & { refId?: string };
  });
}

/** A `TimeSeriesInfo`: its time definitions, then the summary item and the probability items. */
function convertTimeSeries(info: XmlElement): TimeSeriesZone {
  const items = info.all('Item');
  const summaryItems = items.filter((item) => typeOf(item) === SUMMARY);
  const probabilityItems = items.filter((item) => typeOf(item) === PROBABILITY);
  return {
    timeDefines: timeDefines(info),
    items: [
      ...summaryItems.map((item) => ({
        kinds: [{ type: SUMMARY, summaries: summariesOf(propertyOf(item)) }],
        zones: zonesOf(item),
      })),
      ...probabilityItems.map((item) => ({
        kinds: [
          {
            type: PROBABILITY,
            probabilities: probabilitiesOf(propertyOf(item)?.child('ClimateProbabilityValuesPart')),
          },
        ],
        zones: zonesOf(item),
      })),
    ] as TimeSeriesZone['items'],
  };
}
