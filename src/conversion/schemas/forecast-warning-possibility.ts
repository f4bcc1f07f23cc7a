import type { ForecastWarningPossibility } from '@dmdata/telegram-json-types';
import { buildDocument } from '../head.ts';
import { timeDefines } from '../meteorology.ts';
import type { Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type V110 = ForecastWarningPossibility.v1_1_0.PublicBody;
type TimeSeriesItem = ForecastWarningPossibility.v1_1_0.TimeSeriesItem;
type Rank =
  ForecastWarningPossibility.v1_1_0.PossibilityRankOfWarning<ForecastWarningPossibility.v1_1_0.PossibilityRankType>;

/**
 * 早期注意情報（明後日まで） (VPFD61) → forecast-warning-possibility 1.1.0
 * (docs/conversion/forecast-warning-possibility.md).
 */
export const forecastWarningPossibility: Converter = {
  schema: { type: 'forecast-warning-possibility', version: '1.1.0' },
  convert(source) {
    const infos = source.report.at('Body/MeteorologicalInfos');
    const body: V110 = {
      region: {
        type: '区域予報',
        timeSeries: (infos?.all('TimeSeriesInfo') ?? [])
          .slice(0, 1)
          .map(convertTimeSeries) as V110['region']['timeSeries'],
      },
    };
    return buildDocument(source, this.schema, body);
  },
};

function convertTimeSeries(info: XmlElement) {
  return { timeDefines: timeDefines(info), items: info.all('Item').map(convertItem) };
}

/** One forecast area: its code and name, one kind per element (大雨, 土砂災害, 雪, 風（風雪）, and 波, 潮位 where they apply). */
function convertItem(item: XmlElement): TimeSeriesItem {
  const area = item.child('Area');
  return {
    code: trimmedText(area?.child('Code')),
    name: trimmedText(area?.child('Name')),
    kinds: item.all('Kind').map((kind) => ({
      properties: kind.all('Property').map((property) => {
        const text = trimmedText(property.child('Text'));
        return {
          type: trimmedText(property.child('Type')),
          possibilityRankOfWarnings: (
            property.child('PossibilityRankOfWarningPart')?.all('PossibilityRankOfWarning') ?? []
          ).map(convertRank),
          ...(text ? { texts: [{ text }] } : {}),
        };
      }),
    })) as unknown as TimeSeriesItem['kinds'],
  };
}

/** 高, 中, なし as written; no value (a low possibility) → `null` with 値なし. */
export function convertRank(rank: XmlElement): Rank {
  const value = rank.text.trim();
  const common = { refId: rank.attr('refID') ?? '', type: (rank.attr('type') ?? '') as Rank['type'] };
  return value === ''
    ? { ...common, value: null, condition: '値なし' }
    : { ...common, value: value as '高' | '中' | 'なし' };
}
