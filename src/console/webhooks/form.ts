import type { Params } from '../../http/form.ts';
import { singleValue } from '../../http/form.ts';
import { parsePlaceFilters } from '../../telegrams/place-filters.ts';
import {
  MAX_EXTRA_HEADERS,
  MAX_HEADER_NAME_LENGTH,
  MAX_HEADER_VALUE_LENGTH,
  checkExtraHeaders,
  headerLines,
  headerNamesAllowed,
  type ExtraHeaders,
} from '../../webhooks/extra-headers.ts';
import { checkMention } from '../../webhooks/formats/mention.ts';
import { MAX_TOKEN_LENGTH, checkNoteOptions, type NoteOptionProblem } from '../../webhooks/note-options.ts';
import {
  WEBHOOK_FORMATS,
  type Subscription,
  type SubscriptionSpec,
  type WebhookFormat,
} from '../../webhooks/subscriptions.ts';
import { MAX_URL_LENGTH, checkWebhookUrl, type UrlCheck } from '../../webhooks/url-check.ts';
import type { Lang, Messages } from '../i18n.ts';

/**
 * The webhook form of the console (docs/console.md "Webhooks"): what was typed, and the subscription
 * it describes or every field that breaks a rule, each with its message in the page's language (the
 * place filters with the API's own messages, from the parser `GET /v2/stream` and `/v2/webhook` use).
 */

export type WebhookField =
  | 'url'
  | 'format'
  | 'token'
  | 'visibility'
  | 'localOnly'
  | 'headers'
  | 'mention'
  | 'mentionOn'
  | 'lang'
  | 'classifications'
  | 'types'
  | 'test'
  | 'formatMode'
  | 'areas'
  | 'minIntensity';

export interface WebhookFormValues {
  url: string;
  format: string;
  token: string;
  visibility: string;
  localOnly: boolean;
  /** One `Name: value` per line (never shown again once stored). */
  headers: string;
  /** A change removes the stored headers. */
  removeHeaders: boolean;
  mention: string;
  mentionOn: string;
  lang: string;
  classifications: string[];
  types: string;
  test: string;
  formatMode: string;
  areas: string;
  minIntensity: string;
}

export type WebhookProblems = Partial<Record<WebhookField, string>>;

export const emptyWebhookForm: WebhookFormValues = {
  url: '',
  format: 'namazu',
  token: '',
  visibility: 'public',
  localOnly: false,
  headers: '',
  removeHeaders: false,
  mention: '',
  mentionOn: 'urgent',
  lang: 'ja',
  classifications: [],
  types: '',
  test: 'no',
  formatMode: 'raw',
  areas: '',
  minIntensity: '',
};

/** Types one subscription may name, and the longest (as `POST /v2/webhook`). */
const MAX_TYPES = 30;
const MAX_TYPE_LENGTH = 64;

type RuleKey =
  | 'malformed'
  | 'scheme'
  | 'credentials'
  | 'address'
  | 'format'
  | 'tokenMissing'
  | 'tokenOther'
  | 'visibility'
  | 'visibilityOther'
  | 'localOnlyOther'
  | 'headers'
  | 'headersKept'
  | 'mention'
  | 'mentionOn'
  | 'lang'
  | 'noClassification'
  | 'notContracted'
  | 'types'
  | 'test'
  | 'formatMode'
  | 'check';

export const webhookRules: Messages<RuleKey> = {
  en: {
    malformed: `Enter an absolute URL (https://…) of up to ${MAX_URL_LENGTH} characters.`,
    scheme:
      'The URL must start with https:// (http:// only where the server sets NAMAZU_WEBHOOK_ALLOW_PRIVATE=true).',
    credentials: 'The URL may not hold a user name or password.',
    address:
      'The URL points at a loopback, private, link-local or metadata address, which is refused (a receiver on a local network needs NAMAZU_WEBHOOK_ALLOW_PRIVATE=true on the server).',
    format: 'Choose one of the formats offered.',
    tokenMissing: `Misskey needs an access token (up to ${MAX_TOKEN_LENGTH} characters) with the permission write:notes.`,
    tokenOther: 'A token is only used with the Misskey format: clear it or choose Misskey.',
    visibility: 'Choose one of the visibilities offered.',
    visibilityOther: 'A visibility is only chosen with the Misskey format: choose Public or choose Misskey.',
    localOnlyOther: 'Local only is only used with the Misskey format: clear it or choose Misskey.',
    headers: `Write at most ${MAX_EXTRA_HEADERS} lines of "Name: value": each name of letters, digits and !#$%&'*+.^_\`|~- (up to ${MAX_HEADER_NAME_LENGTH} characters) given once, each value of 1 to ${MAX_HEADER_VALUE_LENGTH} ASCII characters, and none the delivery sets itself (Content-Type, Content-Length, Host, User-Agent, the connection's, webhook-*; with ntfy, Title, Priority and Tags).`,
    headersKept:
      'The headers set now include one this format sets itself (with ntfy: Title, Priority or Tags): type the headers again without it, or remove them.',
    mention:
      'Write one mention as Discord (<@&role id>, <@user id>, @here, @everyone) or Slack (<!channel>, <!here>, <@user id>, <!subteam^group id>) reads it, with that format only; or leave it empty.',
    mentionOn: 'Choose one of the thresholds offered.',
    lang: 'Choose Japanese or English.',
    noClassification: 'Choose at least one classification.',
    notContracted: 'Choose only classifications your account has a contract for.',
    types: `List at most ${MAX_TYPES} telegram types, each up to ${MAX_TYPE_LENGTH} characters, separated by spaces or commas.`,
    test: 'Choose whether test telegrams are included.',
    formatMode: 'Choose raw or json.',
    check: '',
  },
  ja: {
    malformed: `${MAX_URL_LENGTH}文字以内の絶対URL（https://…）を入力してください。`,
    scheme:
      'URLは https:// で始まる必要があります（http:// はサーバーが NAMAZU_WEBHOOK_ALLOW_PRIVATE=true のときのみ）。',
    credentials: 'URLにユーザー名やパスワードを含めることはできません。',
    address:
      'URLがループバック、プライベート、リンクローカル、またはメタデータのアドレスを指しているため、受け付けられません（ローカルネットワークの受信側にはサーバーの NAMAZU_WEBHOOK_ALLOW_PRIVATE=true が必要です）。',
    format: '表示されている形式から選んでください。',
    tokenMissing: `Misskeyには write:notes 権限のアクセストークン（${MAX_TOKEN_LENGTH}文字以内）が必要です。`,
    tokenOther: 'トークンはMisskey形式でのみ使います。消去するか、Misskeyを選んでください。',
    visibility: '表示されている公開範囲から選んでください。',
    visibilityOther: '公開範囲はMisskey形式でのみ選べます。パブリックにするか、Misskeyを選んでください。',
    localOnlyOther: 'ローカルのみはMisskey形式でのみ使います。チェックを外すか、Misskeyを選んでください。',
    headers: `「名前: 値」の行を${MAX_EXTRA_HEADERS}行まで入力してください。名前は英数字と !#$%&'*+.^_\`|~- の${MAX_HEADER_NAME_LENGTH}文字以内で重複なし、値は1〜${MAX_HEADER_VALUE_LENGTH}文字のASCII文字です。配信が自ら付けるもの（Content-Type、Content-Length、Host、User-Agent、接続のヘッダー、webhook-*、ntfyでは Title、Priority、Tags）は指定できません。`,
    headersKept:
      '設定済みのヘッダーに、この形式が自ら付けるもの（ntfyでは Title、Priority、Tags）が含まれています。それを除いて入力し直すか、削除してください。',
    mention:
      'メンションは、Discord（<@&ロールID>、<@ユーザーID>、@here、@everyone）またはSlack（<!channel>、<!here>、<@ユーザーID>、<!subteam^グループID>）の書き方で1つ、その形式でのみ入力してください。不要なら空のままにしてください。',
    mentionOn: '表示されている基準から選んでください。',
    lang: '日本語か英語を選んでください。',
    noClassification: '分類を1つ以上選んでください。',
    notContracted: '契約している分類だけを選んでください。',
    types: `電文の種類は${MAX_TYPES}個まで、それぞれ${MAX_TYPE_LENGTH}文字以内で、空白かコンマで区切って入力してください。`,
    test: 'テスト電文を含めるかどうかを選んでください。',
    formatMode: 'raw か json を選んでください。',
    check: 'この項目を確認してください:',
  },
};

/** A subscription's settings as the form shows them to be changed (never its token). */
export function webhookFormValuesOf(s: Subscription): WebhookFormValues {
  return {
    url: s.url,
    format: s.format,
    token: '',
    visibility: s.visibility ?? 'public',
    localOnly: s.localOnly,
    headers: '',
    removeHeaders: false,
    mention: s.mention ?? '',
    mentionOn: s.mentionOn,
    lang: s.lang,
    classifications: [...s.filter.classifications],
    types: s.filter.types?.join(' ') ?? '',
    test: s.filter.test,
    formatMode: s.filter.formatMode,
    areas: s.filter.areas?.join(' ') ?? '',
    minIntensity: s.filter.minIntensity ?? '',
  };
}

/** The form as submitted (kept to show again beside the errors). */
export function webhookFormValues(form: Params): WebhookFormValues {
  const one = (name: keyof WebhookFormValues, fallback = '') => singleValue(form, name) ?? fallback;
  return {
    url: one('url').trim(),
    format: one('format'),
    token: one('token').trim(),
    // Absent from an older page's form: the API's default.
    visibility: one('visibility', 'public'),
    localOnly: one('localOnly') === 'true',
    headers: one('headers'),
    removeHeaders: one('removeHeaders') === 'true',
    mention: one('mention').trim(),
    // Absent from an older page's form: the API's default.
    mentionOn: one('mentionOn', 'urgent'),
    lang: one('lang'),
    classifications: [...new Set(form.get('classifications') ?? [])],
    types: one('types'),
    test: one('test'),
    formatMode: one('formatMode'),
    areas: one('areas'),
    minIntensity: one('minIntensity'),
  };
}

const isFormat = (value: string): value is WebhookFormat =>
  (WEBHOOK_FORMATS as readonly string[]).includes(value);
const urlRule = (why: Exclude<UrlCheck, { ok: true }>['why']): RuleKey => why;

/** The telegram types typed, or null when they break the rule. */
function typesOf(raw: string): string[] | null {
  const types = [...new Set(raw.split(/[\s,、]+/).filter((t) => t !== ''))];
  return types.length > MAX_TYPES || types.some((t) => t.length > MAX_TYPE_LENGTH) ? null : types;
}

/** The rule each refusal of the Misskey options breaks, per field (`webhooks/note-options.ts`). */
const noteRules: Record<'token' | 'visibility' | 'localOnly', Partial<Record<NoteOptionProblem, RuleKey>>> = {
  token: { missing: 'tokenMissing', otherFormat: 'tokenOther' },
  visibility: { unknown: 'visibility', otherFormat: 'visibilityOther' },
  localOnly: { otherFormat: 'localOnlyOther' },
};

/**
 * The request headers typed; or, when none are and the change keeps those stored (`keptNames`),
 * whether the format may send them.
 */
function headersOf(v: WebhookFormValues, keptNames: readonly string[] | null): ExtraHeaders | RuleKey {
  if (v.headers.trim() === '') {
    if (keptNames === null || v.removeHeaders || headerNamesAllowed(keptNames, v.format)) return [];
    return 'headersKept';
  }
  const lines = headerLines(v.headers);
  const checked = lines === null ? null : checkExtraHeaders(lines, v.format);
  return checked?.ok ? checked.value : 'headers';
}

/** Whether a change keeps the stored request headers: none typed, and not removed. */
export const keepsStoredHeaders = (v: WebhookFormValues) => v.headers.trim() === '' && !v.removeHeaders;

/**
 * The subscription the form describes and its host, or every problem at once (nothing is created
 * then). `contracted`: the classifications the account's running contracts deliver; `keptNames`:
 * for a change, the names of the request headers it keeps when none are typed.
 */
export function checkWebhookForm(
  v: WebhookFormValues,
  contracted: ReadonlySet<string>,
  allowPrivate: boolean,
  lang: Lang,
  keptNames: readonly string[] | null = null,
): { ok: true; spec: SubscriptionSpec; host: string } | { ok: false; problems: WebhookProblems } {
  const t = webhookRules[lang];
  const problems: WebhookProblems = {};
  const url = checkWebhookUrl(v.url, allowPrivate);
  if (!url.ok) problems.url = t[urlRule(url.why)];
  if (!isFormat(v.format)) problems.format = t.format;
  const note = checkNoteOptions(v);
  if (!note.ok) {
    for (const [field, problem] of Object.entries(note.problems) as [
      keyof typeof noteRules,
      NoteOptionProblem,
    ][])
      problems[field] = t[noteRules[field][problem]!];
  }
  const mention = checkMention(v);
  if (!mention.ok) problems[mention.field] = t[mention.field];
  const headers = headersOf(v, keptNames);
  if (typeof headers === 'string') problems.headers = t[headers];
  if (v.lang !== 'ja' && v.lang !== 'en') problems.lang = t.lang;
  if (v.classifications.length === 0) problems.classifications = t.noClassification;
  else if (v.classifications.some((c) => !contracted.has(c))) problems.classifications = t.notContracted;
  const types = typesOf(v.types);
  if (types === null) problems.types = t.types;
  if (v.test !== 'no' && v.test !== 'including') problems.test = t.test;
  if (v.formatMode !== 'raw' && v.formatMode !== 'json') problems.formatMode = t.formatMode;
  // Each filter on its own, so that both can be refused at once; the API's own messages.
  const areas = parsePlaceFilters({ areas: v.areas }, 'query');
  if (!areas.ok) problems.areas = `${t.check} ${areas.message}`.trim();
  const minIntensity = parsePlaceFilters({ minIntensity: v.minIntensity || undefined }, 'query');
  if (!minIntensity.ok) problems.minIntensity = `${t.check} ${minIntensity.message}`.trim();
  // Every refusal is in `problems`; the results named here are narrowed for the spec below.
  if (
    !url.ok ||
    !note.ok ||
    !mention.ok ||
    typeof headers === 'string' ||
    types === null ||
    !areas.ok ||
    !minIntensity.ok ||
    Object.keys(problems).length > 0
  )
    return { ok: false, problems };
  const spec: SubscriptionSpec = {
    url: url.url,
    classifications: v.classifications,
    types: types.length > 0 ? types : null,
    test: v.test as SubscriptionSpec['test'],
    formatMode: v.formatMode as SubscriptionSpec['formatMode'],
    areas: areas.value.areas,
    minIntensity: minIntensity.value.minIntensity,
    format: v.format as WebhookFormat,
    lang: v.lang as SubscriptionSpec['lang'],
    ...note.value,
    ...mention.value,
    headers,
  };
  return { ok: true, spec, host: url.host };
}
