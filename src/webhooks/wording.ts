// The words of a post in Japanese or English (docs/webhooks.md, "Ready-made posts"): from a
// TelegramSummary to a title, a one-line gist, the headline and labelled fields, which each format
// (formats/) lays out as its service expects. Place names and JMA's headlines exist only in
// Japanese: English posts keep them as JMA writes them.
import { intensityText, longPeriodText } from './intensity.ts';
import { japanTime } from './time.ts';
import type { AreaGroup, ClassRange, Depth, Facts, LongPeriod, Magnitude, TelegramSummary } from './types.ts';
import { englishKind, englishSentences, englishTitle } from './english.ts';

export type Lang = 'ja' | 'en';

export interface Field {
  name: string;
  value: string;
}

export interface Described {
  /** "【訓練】", "[TRAINING] " or "": what starts the title and the text of a marked telegram. */
  mark: string;
  /** The title, starting with the mark. */
  title: string;
  /** The key facts in one line (epicentre, magnitude, intensity), or "". */
  gist: string;
  /** JMA's headline or the telegram's own text, or null. */
  headline: string | null;
  fields: Field[];
  /** Head/ReportDateTime in Japan time. */
  time: string;
  /** Who issued it and the type: "気象庁 VXSE53" / "JMA VXSE53". */
  source: string;
}

const MARKS = {
  ja: { training: '【訓練】', test: '【試験】' },
  en: { training: '[TRAINING] ', test: '[TEST] ' },
} as const;

const LABELS = {
  ja: {
    forecastMax: '最大予測震度',
    forecastLongPeriod: '予想最大長周期地震動階級',
    max: '最大震度',
    maxLongPeriod: '最大長周期地震動階級',
    longPeriodClass: (cls: string) => `長周期地震動階級${cls}`,
    lowIntensity: (from: string) => `震度4以下で長周期地震動階級${from}以上`,
    unreceived: '震度5弱以上未入電',
    epicentre: '震源',
    magnitude: '規模',
    depth: '深さ',
    origin: '発生時刻',
    warningAreas: '警報地域',
    tsunami: '津波',
    level: '警戒レベル',
    volcano: '火山',
    serial: (n: string) => `第${n}報`,
    final: '最終報',
    cancelled: '【取消】',
    corrected: '【訂正】',
    withdrawn: (title: string) => `先に発表された「${title}」は取り消されました。`,
    assumed: '（仮定震源要素）',
    jma: '気象庁',
    separator: '、',
    colon: '：',
  },
  en: {
    forecastMax: 'Max forecast intensity',
    forecastLongPeriod: 'Max forecast long-period class',
    max: 'Max intensity',
    maxLongPeriod: 'Max long-period class',
    longPeriodClass: (cls: string) => `Long-period class ${cls}`,
    lowIntensity: (from: string) => `Long-period class ${from} or more at Shindo 4 or less`,
    unreceived: 'Shindo 5- or more, not yet received',
    epicentre: 'Epicentre',
    magnitude: 'Magnitude',
    depth: 'Depth',
    origin: 'Origin time',
    warningAreas: 'Warning regions',
    tsunami: 'Tsunami',
    level: 'Alert level',
    volcano: 'Volcano',
    serial: (n: string) => `#${n}`,
    final: 'final',
    cancelled: '[CANCELLED] ',
    corrected: '[CORRECTION] ',
    withdrawn: (title: string) => `The earlier report (${title}) is cancelled.`,
    assumed: ' (assumed epicentre)',
    jma: 'JMA',
    separator: ', ',
    colon: ': ',
  },
} as const;

export function describe(summary: TelegramSummary, lang: Lang): Described {
  const mark = summary.mark === null ? '' : MARKS[lang][summary.mark];
  const words = LABELS[lang];
  const facts = summary.facts;
  const quoteHeadline = lang === 'ja' || (facts.kind !== 'eew' && facts.kind !== 'earthquake');
  const headline = summary.text ?? (quoteHeadline ? summary.headline : null);
  return {
    mark,
    title: mark + titleOf(summary, lang),
    gist: gistOf(facts, lang),
    headline:
      headline === null
        ? withdrawnText(summary, lang)
        : lang === 'en' && summary.text !== null
          ? englishSentences(headline)
          : headline,
    fields: fieldsOf(facts, lang),
    time: japanTime(summary.reportTime, lang),
    source: `${words.jma} ${summary.type}`,
  };
}

/** A cancellation without JMA's own sentence withdrawing it says so itself; null for the rest. */
function withdrawnText(summary: TelegramSummary, lang: Lang): string | null {
  if (summary.infoType !== '取消') return null;
  return LABELS[lang].withdrawn(baseTitle(summary, lang));
}

const baseTitle = (summary: TelegramSummary, lang: Lang) =>
  lang === 'ja' ? summary.title : englishTitle(summary.title, summary.category);

/**
 * The title, a cancellation or correction named first (【取消】, 【訂正】): a notification shows the
 * start of a long title only, and "大津波警報・津波警報・津波注意報・津波予報 取消" cut short would read
 * as the warning itself.
 */
function titleOf(summary: TelegramSummary, lang: Lang): string {
  const words = LABELS[lang];
  const base = baseTitle(summary, lang);
  const facts = summary.facts;
  const status =
    summary.infoType === '取消' ? words.cancelled : summary.infoType === '訂正' ? words.corrected : '';
  const tags: string[] = [];
  if (facts.kind === 'eew') {
    if (facts.serial !== null) tags.push(words.serial(facts.serial));
    if (facts.final) tags.push(words.final);
  }
  if (tags.length === 0) return status + base;
  return status + (lang === 'ja' ? `${base} ${tags.join(' ')}` : `${base} ${tags.join(', ')}`);
}

function gistOf(facts: Facts, lang: Lang): string {
  if (facts.kind !== 'eew' && facts.kind !== 'earthquake') return '';
  const parts: string[] = [];
  if (facts.epicentre !== null) parts.push(facts.epicentre);
  if (facts.magnitude !== null && facts.magnitude.value !== null) parts.push(`M${facts.magnitude.value}`);
  // Japanese runs the label into the class (最大震度5弱); English names the scale (Max intensity Shindo 5-).
  const bare = lang === 'ja';
  const labelled = (label: string, value: string) =>
    lang === 'ja' ? `${label}${value}` : `${label} ${value}`;
  // A VXSE62 is about its long-period class: it comes first.
  if (facts.kind === 'earthquake' && facts.longPeriod !== null) {
    parts.push(labelled(LABELS[lang].maxLongPeriod, longPeriodText(facts.longPeriod.max, lang, true)));
  }
  const max =
    facts.kind === 'eew'
      ? rangeText(facts.maxIntensity, lang, intensityText, bare)
      : facts.maxIntensity && intensityText(facts.maxIntensity, lang, bare);
  if (max) parts.push(labelled(LABELS[lang][facts.kind === 'eew' ? 'forecastMax' : 'max'], max));
  return parts.join(lang === 'ja' ? ' ' : ', ');
}

function fieldsOf(facts: Facts, lang: Lang): Field[] {
  const words = LABELS[lang];
  const fields: Field[] = [];
  const add = (name: string, value: string | null) => {
    if (value !== null && value !== '') fields.push({ name, value });
  };
  switch (facts.kind) {
    case 'eew':
      add(words.forecastMax, rangeText(facts.maxIntensity, lang, intensityText));
      add(words.forecastLongPeriod, rangeText(facts.maxLongPeriod, lang, longPeriodText));
      add(
        words.epicentre,
        facts.epicentre === null ? null : facts.epicentre + (facts.assumed ? words.assumed : ''),
      );
      add(words.magnitude, magnitudeText(facts.magnitude, lang));
      add(words.depth, depthText(facts.depth, lang));
      add(words.origin, facts.originTime === null ? null : japanTime(facts.originTime, lang));
      add(words.warningAreas, facts.areas.join(words.separator));
      break;
    case 'earthquake':
      if (facts.longPeriod !== null) add(words.maxLongPeriod, longPeriodText(facts.longPeriod.max, lang));
      add(words.max, facts.maxIntensity === null ? null : intensityText(facts.maxIntensity, lang));
      add(words.epicentre, facts.epicentre);
      add(words.magnitude, magnitudeText(facts.magnitude, lang));
      add(words.depth, depthText(facts.depth, lang));
      add(words.origin, facts.originTime === null ? null : japanTime(facts.originTime, lang));
      for (const group of facts.strongest)
        add(intensityText(group.name, lang), group.areas.join(words.separator));
      add(words.unreceived, facts.unreceived.join(words.separator));
      if (facts.longPeriod !== null) longPeriodFields(facts.longPeriod, lang, add);
      add(
        words.tsunami,
        facts.tsunami === null ? null : lang === 'ja' ? facts.tsunami : englishSentences(facts.tsunami),
      );
      break;
    case 'tsunami':
      for (const group of facts.classes) add(groupName(group, lang), group.areas.join(words.separator));
      break;
    case 'areas':
      add(words.volcano, facts.subjects.join(words.separator));
      add(words.level, facts.level === null ? null : lang === 'ja' ? facts.level : englishKind(facts.level));
      for (const group of facts.groups) add(groupName(group, lang), group.areas.join(words.separator));
      break;
  }
  return fields;
}

/** A VXSE62's regions of each strongest long-period class, and those where it came with a low intensity. */
function longPeriodFields(
  longPeriod: LongPeriod,
  lang: Lang,
  add: (name: string, value: string | null) => void,
) {
  const words = LABELS[lang];
  for (const group of longPeriod.strongest)
    add(words.longPeriodClass(group.name), group.areas.join(words.separator));
  const low = longPeriod.lowIntensity;
  if (low !== null) add(words.lowIntensity(low.from), low.areas.join(words.separator));
}

const groupName = (group: AreaGroup, lang: Lang) => (lang === 'ja' ? group.name : englishKind(group.name));

/**
 * JMA's forecast range of intensities or long-period classes (`classText` writes one): one class
 * ("震度6弱"), a range ("震度5弱〜6弱"), "or more" ("震度6弱以上"), or unknown (不明).
 */
function rangeText(
  range: ClassRange | null,
  lang: Lang,
  classText: (cls: string, lang: Lang, bare?: boolean) => string,
  bare = false,
): string | null {
  if (range === null) return null;
  if (range.from === '不明') return lang === 'ja' ? '不明' : 'unknown';
  const from = classText(range.from, lang, bare);
  if (range.to === 'over') return lang === 'ja' ? `${from}以上` : `${from} or more`;
  if (range.to === range.from || range.to === '不明') return from;
  const to = classText(range.to, lang, true);
  return lang === 'ja' ? `${from}〜${to}` : `${from} to ${to}`;
}

function magnitudeText(magnitude: Magnitude | null, lang: Lang): string | null {
  if (magnitude === null) return null;
  if (magnitude.value !== null) return `M${magnitude.value}`;
  if (magnitude.condition === 'Ｍ８を超える巨大地震') return lang === 'ja' ? 'M8を超える巨大地震' : 'over M8';
  return lang === 'ja' ? '不明' : 'unknown';
}

function depthText(depth: Depth | null, lang: Lang): string | null {
  if (depth === null) return null;
  if (depth.condition === 'ごく浅い') return lang === 'ja' ? 'ごく浅い' : 'very shallow';
  if (depth.condition === '７００ｋｍ以上') return lang === 'ja' ? '700km以上' : '700 km or deeper';
  if (depth.value === null) return lang === 'ja' ? '不明' : 'unknown';
  return lang === 'ja' ? `${depth.value}km` : `${depth.value} km`;
}
