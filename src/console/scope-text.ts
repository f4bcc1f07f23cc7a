import { scopeDescriptions } from '../scopes.ts';
import type { Lang, Messages } from './i18n.ts';

/**
 * What each scope allows, in the page's language: the English words are the service's own
 * (`scopes.ts`), the Japanese ones are kept here beside them. The scope pickers group the scopes by
 * what they serve and offer presets (docs/console.md "Credentials").
 */

const japaneseDescriptions: Readonly<Record<string, string>> = {
  'contract.list': 'アカウントで契約しているプランの確認',
  'telegram.list': '受信できる電文の一覧の取得',
  'telegram.data': '電文の内容の取得',
  'telegram.get.earthquake': '地震・津波関連の電文の受信',
  'telegram.get.volcano': '火山関連の電文の受信',
  'telegram.get.weather': '気象警報・注意報と気象情報の受信',
  'telegram.get.forecast': '天気予報の電文の受信',
  'telegram.get.observation': '気象観測の電文の受信',
  'telegram.get.scheduled': '定時の電文の受信',
  'telegram.get.lightning': '雷の電文の受信',
  'eew.get.forecast': '緊急地震速報（予報）の受信',
  'eew.get.warning': '緊急地震速報（警報）の受信',
  'eew.get.realtime': 'リアルタイムの緊急地震速報の受信',
  'gd.earthquake': '地震の一覧と詳細の取得',
  'gd.eew': '過去の緊急地震速報の取得',
  'parameter.earthquake': '震度観測点の一覧の取得',
  'parameter.tsunami': '津波観測点の一覧の取得',
  'socket.start': 'リアルタイム受信のWebSocket接続の開始',
  'socket.list': 'あなたのWebSocket接続の確認',
  'socket.close': 'あなたのWebSocket接続の切断',
  'webhook.list': 'あなたのWebhookとその配信状況の確認',
  'webhook.manage':
    '電文を受け取るWebhookの作成・変更・テスト・無効化と再有効化・再配信・シークレット更新・削除',
  'admin.telegram.ingest': 'このサーバーへの電文の投入（管理者のみ）',
};

/** What a scope allows, in words of the language; the scope itself when it has no description. */
export function scopeDescription(scope: string, lang: Lang): string {
  const words = lang === 'ja' ? japaneseDescriptions[scope] : scopeDescriptions[scope];
  return words ?? scopeDescriptions[scope] ?? scope;
}

/** Whether every known scope has its Japanese words (a test holds this for new scopes). */
export const hasJapaneseDescription = (scope: string): boolean => Object.hasOwn(japaneseDescriptions, scope);

type GroupKey = 'account' | 'telegrams' | 'eew' | 'lists' | 'realtime' | 'webhooks' | 'admin' | 'other';

const groupText: Messages<GroupKey> = {
  en: {
    account: 'Account',
    telegrams: 'Telegrams',
    eew: 'Earthquake early warnings',
    lists: 'Earthquake lists and stations',
    realtime: 'Real-time connections',
    webhooks: 'Webhooks',
    admin: 'Administration',
    other: 'Other',
  },
  ja: {
    account: 'アカウント',
    telegrams: '電文',
    eew: '緊急地震速報',
    lists: '地震の一覧と観測点',
    realtime: 'リアルタイム接続',
    webhooks: 'Webhook',
    admin: '管理',
    other: 'その他',
  },
};

/** The group of a scope, by its name's first part; a scope of a new family lands in "Other". */
function groupOf(scope: string): GroupKey {
  const family = scope.slice(0, scope.indexOf('.'));
  const groups: Record<string, GroupKey> = {
    contract: 'account',
    telegram: 'telegrams',
    eew: 'eew',
    gd: 'lists',
    parameter: 'lists',
    socket: 'realtime',
    webhook: 'webhooks',
    admin: 'admin',
  };
  return groups[family] ?? 'other';
}

const GROUP_ORDER: readonly GroupKey[] = [
  'telegrams',
  'eew',
  'lists',
  'realtime',
  'webhooks',
  'account',
  'admin',
  'other',
];

/** The scopes in their groups, in the groups' order (empty groups left out), each scope in list order. */
export function scopeGroups(scopes: readonly string[], lang: Lang): { label: string; scopes: string[] }[] {
  return GROUP_ORDER.flatMap((key) => {
    const members = scopes.filter((s) => groupOf(s) === key);
    return members.length > 0 ? [{ label: groupText[lang][key], scopes: members }] : [];
  });
}

/** The presets of a scope picker: names a person chooses from instead of ticking boxes one by one. */
export const scopePresets = ['read', 'realtime', 'everything'] as const;
export type ScopePreset = (typeof scopePresets)[number];

const classScope = (s: string) => s.startsWith('telegram.get.') || s.startsWith('eew.get.');

/**
 * What each preset ticks (docs/console.md "Credentials"), as rules over the scopes' names so that a
 * new scope of a family joins its presets. Administrator scopes are never part of a preset.
 * - read: the data API's reads: telegram lists and contents of every classification, the
 *   earthquake and early-warning lists, the station lists, the account's contracts;
 * - realtime: WebSocket sessions (open, list, close) of every classification, and the contracts;
 * - everything: every scope offered but the administrator ones.
 */
const presetRules: Record<ScopePreset, (scope: string) => boolean> = {
  read: (s) =>
    s === 'contract.list' ||
    s === 'telegram.list' ||
    s === 'telegram.data' ||
    classScope(s) ||
    s.startsWith('gd.') ||
    s.startsWith('parameter.'),
  realtime: (s) => s === 'contract.list' || s.startsWith('socket.') || classScope(s),
  everything: () => true,
};

export const isScopePreset = (value: string): value is ScopePreset =>
  scopePresets.includes(value as ScopePreset);

/** The scopes a preset ticks among those offered. */
export function presetScopes(preset: ScopePreset, offered: readonly string[]): string[] {
  return offered.filter((s) => !s.startsWith('admin.') && presetRules[preset](s));
}

export const presetText: Messages<ScopePreset | 'legend' | 'hint'> = {
  en: {
    legend: 'Presets',
    hint: 'A preset ticks its scopes below (nothing is created yet); you can change them before creating.',
    read: 'Read telegrams',
    realtime: 'Real-time',
    everything: 'Everything',
  },
  ja: {
    legend: 'まとめて選ぶ',
    hint: '下のスコープにまとめてチェックを入れます（まだ作成はしません）。作成の前に変更できます。',
    read: '電文を読む',
    realtime: 'リアルタイム受信',
    everything: 'すべて',
  },
};
