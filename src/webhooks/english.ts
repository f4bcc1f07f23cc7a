// English names of JMA's titles, warning classes and fixed sentences (wording.ts). JMA publishes
// them in Japanese only; a name not listed here stays in Japanese, so nothing is ever left out.
import type { Category } from './types.ts';

const TITLES: Record<string, string> = {
  '緊急地震速報（警報）': 'Earthquake Early Warning (warning)',
  '緊急地震速報（予報）': 'Earthquake Early Warning (forecast)',
  '緊急地震速報（地震動予報）': 'Earthquake Early Warning (ground motion forecast)',
  緊急地震速報配信テスト: 'Earthquake Early Warning delivery test',
  リアルタイム震度: 'Real-time seismic intensity',
  震度速報: 'Seismic intensity report',
  震源に関する情報: 'Hypocentre report',
  '震源・震度情報': 'Earthquake report',
  遠地地震に関する情報: 'Distant earthquake report',
  長周期地震動に関する観測情報: 'Long-period ground motion report',
  顕著な地震の震源要素更新のお知らせ: 'Hypocentre update',
  '地震・津波に関するお知らせ': 'Earthquake and tsunami notice',
  大津波警報: 'Major tsunami warning',
  '大津波警報・津波警報・津波注意報・津波予報': 'Tsunami warnings, advisories and forecasts',
  '津波警報・注意報・予報': 'Tsunami warnings, advisories and forecasts',
  津波情報: 'Tsunami information',
  各地の満潮時刻・津波到達予想時刻に関する情報: 'Tsunami arrival times and high tides',
  津波観測に関する情報: 'Tsunami observations',
  沖合の津波観測に関する情報: 'Offshore tsunami observations',
  噴火速報: 'Eruption flash report',
};

const CATEGORY_PREFIX: Record<Category, string> = {
  eew: 'EEW',
  earthquake: 'Earthquake',
  tsunami: 'Tsunami',
  volcano: 'Volcano',
  weather: 'Weather',
  other: 'JMA',
};

/** The English title of a JMA title; one not listed is kept after its category ("Weather: …"). */
export function englishTitle(title: string, category: Category): string {
  const normal = title.replace(/\s+/g, ' ').trim();
  return TITLES[normal] ?? `${CATEGORY_PREFIX[category]}: ${normal}`;
}

const KINDS: Record<string, string> = {
  大津波警報: 'Major tsunami warning',
  '大津波警報：発表': 'Major tsunami warning (issued now)',
  津波警報: 'Tsunami warning',
  津波注意報: 'Tsunami advisory',
  '津波予報（若干の海面変動）': 'Tsunami forecast (slight sea level change)',
  '津波予報（若干の海面変動）（若干の海面変動）': 'Tsunami forecast (slight sea level change)',
  警報解除: 'Tsunami warning lifted',
  津波注意報解除: 'Tsunami advisory lifted',
  '緊急地震速報（警報）': 'EEW (warning)',
  噴火警報: 'Eruption warning',
  '噴火警報（居住地域）': 'Eruption warning (residential areas)',
  '噴火警報（火口周辺）': 'Eruption warning (near the crater)',
  火口周辺警報: 'Eruption warning (near the crater)',
  噴火予報: 'Eruption forecast',
};

/** Hazards of weather warnings, longest first so that 暴風雪 is read before 暴風. */
const HAZARDS: [string, string][] = [
  ['土砂災害', 'Landslide'],
  ['暴風雪', 'Snowstorm'],
  ['大雨', 'Heavy rain'],
  ['洪水', 'Flood'],
  ['暴風', 'Storm'],
  ['大雪', 'Heavy snow'],
  ['波浪', 'High waves'],
  ['高潮', 'Storm surge'],
  ['強風', 'Strong wind'],
  ['風雪', 'Wind and snow'],
  ['融雪', 'Snowmelt'],
  ['濃霧', 'Dense fog'],
  ['乾燥', 'Dry air'],
  ['なだれ', 'Avalanche'],
  ['低温', 'Low temperature'],
  ['着氷', 'Icing'],
  ['着雪', 'Snow accretion'],
  ['霜', 'Frost'],
  ['雷', 'Thunderstorm'],
];

/** Levels of warnings, most severe first (危険警報 and 特別警報 before 警報). */
const LEVELS: [string, string][] = [
  ['特別警報', 'emergency warning'],
  ['危険警報', 'danger warning'],
  ['警報', 'warning'],
  ['注意報', 'advisory'],
];

/** A warning class in English: tsunami classes, weather warnings and volcanic alert levels. */
export function englishKind(name: string): string {
  if (Object.hasOwn(KINDS, name)) return KINDS[name]!;
  const level = /^(?:噴火警戒)?レベル([1-5１-５])（/.exec(name);
  if (level) return `Volcanic alert level ${toAscii(level[1]!)} (${name})`;
  const weather = /^(?:レベル([1-5１-５]))?(.+?)(特別警報|危険警報|警報|注意報)$/.exec(name);
  if (weather) {
    const hazard = HAZARDS.find(([ja]) => ja === weather[2])?.[1];
    const kind = LEVELS.find(([ja]) => ja === weather[3])![1];
    if (hazard !== undefined) {
      return `${weather[1] ? `Level ${toAscii(weather[1])} ` : ''}${hazard} ${kind}`;
    }
  }
  return name;
}

const SENTENCES: Record<string, string> = {
  'この地震による津波の心配はありません。': 'No tsunami is expected from this earthquake.',
  'この地震による日本への津波の影響はありません。': 'This earthquake causes no tsunami in Japan.',
  '日本への津波の有無については現在調査中です。': 'Whether a tsunami reaches Japan is being assessed.',
  '津波警報等（大津波警報・津波警報あるいは津波注意報）を発表中です。':
    'Tsunami warnings or advisories are in effect.',
  'この地震により、日本の沿岸では若干の海面変動があるかもしれませんが、被害の心配はありません。':
    'Slight sea level changes may occur on the coasts of Japan, without damage.',
  '今後の情報に注意してください。': 'Watch for further information.',
  'この地震について、緊急地震速報を発表しています。':
    'An Earthquake Early Warning was issued for this earthquake.',
};

/** JMA's fixed sentences in English, line by line; a line not known stays in Japanese. */
export function englishSentences(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.trim();
      if (Object.hasOwn(SENTENCES, trimmed)) return SENTENCES[trimmed]!;
      const cancel = /^先ほどの、?(.+)を取り消します。$/.exec(trimmed);
      if (cancel) return `The earlier ${englishTitle(cancel[1]!, 'other')} is cancelled.`;
      // JMA's withdrawal of a report issued in error: "１６日１３時３０分に発表した「…」は誤りですので取り消します。"
      const error = /^(.+)に発表した「(.+)」は誤りですので取り消します。(.*)$/.exec(trimmed);
      return error
        ? `The ${error[2]} issued on ${error[1]} was in error and is cancelled.${error[3] ? ` ${error[3]}` : ''}`
        : line;
    })
    .join('\n');
}

const toAscii = (digits: string) =>
  digits.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));
