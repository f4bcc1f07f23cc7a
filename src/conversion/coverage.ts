import { convertibleTypes, converterFor } from './registry.ts';

/**
 * The data types the production service converts to JSON, as its schema pages and its telegram
 * list (`docs/reference/conversion/json/schema/*.md`, `docs/telegrams/index.md`) give them, with the
 * schema and version it produces. Namazu's side comes from the registry alone; this list and the
 * reasons below are the only hand-kept facts of the coverage table in docs/conversion.md
 * ("Type coverage", written by `scripts/conversion-coverage.ts`).
 */
export interface ProductionConversion {
  /** The code as the production service lists it (`VXKOii (ii=50–89)` for a numbered series). */
  code: string;
  /** Every data type code it stands for. */
  types: readonly string[];
  telegram: string;
  schema: string;
  version: string;
  /** No longer issued by JMA (the production service lists it under 廃止された電文). */
  discontinued?: true;
}

const series = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

const one = (code: string, telegram: string, schema: string, version: string, discontinued?: true) => ({
  code,
  types: [code],
  telegram,
  schema,
  version,
  ...(discontinued ? { discontinued } : {}),
});

export const productionConversions: readonly ProductionConversion[] = [
  one('VXSE60', '地震回数に関する情報', 'earthquake-counts', '1.0.0'),
  one('VXSE56', '地震の活動状況等に関する情報', 'earthquake-explanation', '1.0.0'),
  one('VXSE61', '顕著な地震の震源要素更新のお知らせ', 'earthquake-hypocenter-update', '1.0.0'),
  one('VXSE51', '震度速報', 'earthquake-information', '1.1.0'),
  one('VXSE52', '震源に関する情報', 'earthquake-information', '1.1.0'),
  one('VXSE53', '震源・震度に関する情報', 'earthquake-information', '1.1.0'),
  one('VXSE62', '長周期地震動に関する観測情報', 'earthquake-information', '1.1.0'),
  one('VZSE40', '地震・津波に関するお知らせ', 'earthquake-information', '1.1.0'),
  one('VYSE50', '南海トラフ地震臨時情報', 'earthquake-nankai', '1.0.0'),
  one('VYSE51', '南海トラフ地震関連解説情報（定例外）', 'earthquake-nankai', '1.0.0'),
  one('VYSE52', '南海トラフ地震関連解説情報（定例）', 'earthquake-nankai', '1.0.0'),
  one('VYSE60', '北海道・三陸沖後発地震注意情報', 'earthquake-nankai', '1.0.0'),
  one('VXSE42', '緊急地震速報テスト', 'eew-information', '1.0.0'),
  one('VXSE43', '緊急地震速報（警報）', 'eew-information', '1.0.0'),
  one('VXSE44', '緊急地震速報（予報）', 'eew-information', '1.0.0'),
  one('VXSE45', '緊急地震速報（地震動予報）', 'eew-information', '1.0.0'),
  one('VXSE47', 'リアルタイム震度', 'eew-information', '1.0.0'),
  one('VPCK70', '地方2週間気温予報', 'forecast-2week-temperature', '1.0.0'),
  one('VPFD51', '府県天気予報／地域時系列予報', 'forecast-prefecture', '1.0.0'),
  one('VPFW50', '府県週間天気予報', 'forecast-prefecture', '1.0.0'),
  one('VPZK50', '全般季節予報', 'forecast-season', '1.0.0'),
  one('VPCK50', '地方季節予報', 'forecast-season', '1.0.0'),
  one(
    'VPFD61',
    '早期注意情報（明日までの警報級の可能性）（Ｒ０６）',
    'forecast-warning-possibility',
    '1.1.0',
  ),
  one('VPFD60', '早期注意情報（明日までの警報級の可能性）', 'forecast-warning-possibility', '1.0.0'),
  one('VPFW60', '早期注意情報（明々後日以降の警報級の可能性）', 'forecast-warning-possibility', '1.0.0'),
  one('VZSA50', '地上実況図', 'forecast-weathermap', '1.0.0'),
  one('VZSA60', 'アジア太平洋地上実況図', 'forecast-weathermap', '1.0.0'),
  one('VZSF50', '地上24時間予想図', 'forecast-weathermap', '1.0.0'),
  one('VZSF51', '地上48時間予想図', 'forecast-weathermap', '1.0.0'),
  one('VZSF60', 'アジア太平洋海上悪天24時間予想図', 'forecast-weathermap', '1.0.0'),
  one('VZSF61', 'アジア太平洋海上悪天48時間予想図', 'forecast-weathermap', '1.0.0'),
  one('VTSE41', '津波警報・注意報・予報', 'tsunami-information', '1.1.0'),
  one('VTSE51', '津波情報', 'tsunami-information', '1.1.0'),
  one('VTSE52', '沖合の津波観測に関する情報', 'tsunami-information', '1.1.0'),
  one('VFVO50', '噴火警報・予報', 'volcano-information', '1.0.0'),
  one('VFVO51', '火山の状況に関する解説情報', 'volcano-information', '1.0.0'),
  one('VFVO52', '噴火に関する火山観測報', 'volcano-information', '1.0.0'),
  one('VFVO53', '降灰予報（定時）', 'volcano-information', '1.0.0'),
  one('VFVO54', '降灰予報（速報）', 'volcano-information', '1.0.0'),
  one('VFVO55', '降灰予報（詳細）', 'volcano-information', '1.0.0'),
  one('VFVO56', '噴火速報', 'volcano-information', '1.0.0'),
  {
    code: 'VFSVii (ii=50–61)',
    types: series('VFSV', 50, 61),
    telegram: '火山現象に関する海上警報・予報',
    schema: 'volcano-information',
    version: '1.0.0',
  },
  one('VZVO40', '火山に関するお知らせ', 'volcano-information', '1.0.0'),
  one('VPBS50', '気象防災速報', 'weather-commentary', '1.0.0'),
  one('VPZJ51', '全般気象解説情報', 'weather-commentary', '1.0.0'),
  one('VPCJ51', '地方気象解説情報', 'weather-commentary', '1.0.0'),
  one('VPFJ51', '府県気象解説情報', 'weather-commentary', '1.0.0'),
  one('VMCJ53', '全般気象解説情報（潮位）', 'weather-commentary', '1.0.0'),
  one('VMCJ54', '地方気象解説情報（潮位）', 'weather-commentary', '1.0.0'),
  one('VMCJ55', '府県気象解説情報（潮位）', 'weather-commentary', '1.0.0'),
  one('VPAW51', '早期天候情報', 'weather-early', '1.0.0'),
  one('VPZI50', '全般気象情報（社会的に影響の大きい天候に関する情報）', 'weather-impact-society', '1.0.1'),
  one('VPCI50', '地方気象情報（社会的に影響の大きい天候に関する情報）', 'weather-impact-society', '1.0.1'),
  one(
    'VPFI50',
    '府県気象情報（社会的に影響の大きい天候に関する情報）',
    'weather-impact-society',
    '1.0.0',
    true,
  ),
  one('VPZJ50', '全般気象情報', 'weather-information', '1.0.0'),
  one('VPCJ50', '地方気象情報', 'weather-information', '1.0.0'),
  one('VPFJ50', '府県気象情報', 'weather-information', '1.0.0'),
  one('VMCJ50', '全般潮位情報', 'weather-information', '1.0.0'),
  one('VMCJ51', '地方潮位情報', 'weather-information', '1.0.0'),
  one('VMCJ52', '府県潮位情報', 'weather-information', '1.0.0'),
  one('VPFT50', '熱中症警戒アラート', 'weather-information', '1.0.0'),
  one('VPFG50', '天気概況', 'weather-information', '1.0.0'),
  one('VPZK70', '全般2週間気温予報', 'weather-information', '1.0.0'),
  one('VPSG50', 'スモッグ気象情報', 'weather-information', '1.0.0', true),
  one('VPZS50', '全般スモッグ気象情報', 'weather-information', '1.0.0', true),
  one('VPTI50', '台風全般情報（総合情報、上陸等情報）', 'weather-information', '1.0.0', true),
  one(
    'VPTI51',
    '台風全般情報（位置、発生情報）、発達する熱帯低気圧に関する情報',
    'weather-information',
    '1.0.0',
    true,
  ),
  one('VPTI52', '全般台風情報（位置詳細）', 'weather-information', '1.0.0', true),
  one('VXWW50', '土砂災害警戒情報', 'weather-landslide', '1.0.0'),
  {
    code: 'VXKOii (ii=50–89)',
    types: series('VXKO', 50, 89),
    telegram: '指定河川洪水予報',
    schema: 'weather-river-flood',
    version: '1.0.0',
  },
  one('VPHW51', '竜巻注意情報（目撃情報付き）', 'weather-tornado', '1.0.0'),
  {
    code: 'VPTWii (ii=60–65)',
    types: series('VPTW', 60, 65),
    telegram: '台風解析・予報情報電文（５日進路・強度予報）',
    schema: 'weather-typhoon',
    version: '1.0.0',
  },
  one('VPWW55', '大雨に関する警戒レベル情報', 'weather-warning', '1.1.0'),
  one('VPWW56', '土砂災害に関する警戒レベル情報', 'weather-warning', '1.1.0'),
  one('VPWW57', '高潮に関する警戒レベル情報', 'weather-warning', '1.1.0'),
  one('VPWW58', '暴風・暴風雪に関する警報・注意報', 'weather-warning', '1.1.0'),
  one('VPWW59', '波浪に関する警報・注意報', 'weather-warning', '1.1.0'),
  one('VPWW60', '大雪に関する警報・注意報', 'weather-warning', '1.1.0'),
  one('VPWW61', 'その他の気象注意報', 'weather-warning', '1.1.0'),
  one('VPWS50', '警戒・注意事項を全要素した全国集約通報', 'weather-warning', '1.1.0'),
  one('VPWW54', '特別警報・警報・注意報（新しいステージに対応した防災気象情報）', 'weather-warning', '1.0.0'),
  one('VPOA50', '記録的短時間大雨情報', 'weather-warning', '1.0.0'),
  one('VPWP50', '警戒・注意事項と各気象要素の時系列予想', 'weather-warning-timeseries', '1.0.0'),
];

/**
 * Why Namazu does not convert a type the production service converts. A reason is shown only while
 * the registry has no converter for the type.
 */
export const reasonsNotConverted: Readonly<Record<string, string>> = {};

/** Namazu's converter of every type of an entry, as `schema version`; mixed when they differ. */
function namazuConversion(entry: ProductionConversion): { text: string; gap: boolean } {
  const refs = entry.types.map((type) => {
    const schema = converterFor(type)?.schema;
    return schema ? `${schema.type} ${schema.version}` : null;
  });
  const missing = entry.types.filter((_, i) => refs[i] === null);
  const converted = [...new Set(refs.filter((r): r is string => r !== null))];
  if (missing.length === 0 && converted.length === 1) return { text: converted[0]!, gap: false };
  const reasons = missing.map((type) => reasonsNotConverted[type] ?? 'no reason given');
  const none = `**none**${missing.length < entry.types.length ? ` for ${missing.join(', ')}` : ''}: ${[...new Set(reasons)].join('; ')}`;
  return { text: [...converted, none].join('; '), gap: true };
}

/** Types the production service converts that have no converter in the registry. */
export function unconvertedProductionTypes(): string[] {
  return productionConversions.flatMap((entry) => entry.types.filter((type) => !converterFor(type)));
}

/** The marked section of docs/conversion.md: one row per entry of the production service's list. */
export function coverageTable(): string {
  const rows = productionConversions.map((entry) => {
    const namazu = namazuConversion(entry);
    const telegram = entry.discontinued ? `${entry.telegram} (no longer issued)` : entry.telegram;
    return `| ${entry.code} | ${telegram} | ${entry.schema} ${entry.version} | ${namazu.text} |`;
  });
  const listed = new Set(productionConversions.flatMap((entry) => entry.types));
  const beyond = convertibleTypes().filter((type) => !listed.has(type));
  const gaps = unconvertedProductionTypes().length;
  return [
    '| type | telegram | production service | Namazu |',
    '|---|---|---|---|',
    ...rows,
    '',
    `${productionConversions.length} entries; types without a converter in Namazu: ${gaps}.` +
      (beyond.length > 0
        ? ` The registry also converts ${beyond.join(', ')}, which the production service does not list.`
        : ''),
  ].join('\n');
}

const START = '<!-- conversion-coverage: written by scripts/conversion-coverage.ts -->';
const END = '<!-- /conversion-coverage -->';

/** The text between the coverage markers of a document (throws when they are missing). */
export function coverageSection(document: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error('the coverage markers are missing');
  return document
    .slice(start + START.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** The document with its coverage section replaced by `table`. */
export function replaceCoverageSection(document: string, table: string): string {
  coverageSection(document);
  const before = document.slice(0, document.indexOf(START) + START.length);
  return `${before}\n${table}\n${document.slice(document.indexOf(END))}`;
}
