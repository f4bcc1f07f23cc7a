import { planByClassification } from '../../accounts/plans.ts';
import { INTENSITIES } from '../../telegrams/facts.ts';
import type { DeliveryView } from '../../webhooks/deliveries.ts';
import { MENTION_THRESHOLDS } from '../../webhooks/formats/mention.ts';
import { MISSKEY_VISIBILITIES, type MisskeyVisibility } from '../../webhooks/formats/misskey.ts';
import { DISABLED_BY_OWNER, WEBHOOK_FORMATS, type Subscription } from '../../webhooks/subscriptions.ts';
import type { Lang } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { fieldError, formatTime, invalidAttrs, notice } from '../layout.ts';
import { pathOf, paths } from '../paths.ts';
import { formAlert, newestField } from '../sent-again.ts';
import type { WebhookField, WebhookFormValues, WebhookProblems } from './form.ts';
import { webhooksText } from './text.ts';

/** The Webhooks area's list and creation form (docs/console.md "Webhooks"). */

/** A path segment this long is taken for a token (Discord's, Slack's, a secret ntfy topic) and shortened. */
const TOKEN_LIKE_LENGTH = 20;

/**
 * A webhook's URL as lists show it: the host and the path, without the query, and with every
 * token-like segment shortened, so that a list never shows a token.
 */
export function shownUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const path = url.pathname
      .split('/')
      .map((s) => (s.length >= TOKEN_LIKE_LENGTH ? `${s.slice(0, 4)}…` : s))
      .join('/');
    return `${url.host}${path}${url.search ? '?…' : ''}`;
  } catch {
    return '—';
  }
}

/** The state of a subscription in words: active (failing since…), or disabled with its reason. */
export function stateText(s: Subscription, lang: Lang): string {
  const t = webhooksText[lang];
  // Disabled by its failing streak or its owner, said in the page's language (and time).
  if (s.state === 'disabled' && s.failingSince)
    return `${t.disabled}: ${t.disabledFailing} ${formatTime(s.failingSince)}`;
  if (s.state === 'disabled' && s.disabledReason === DISABLED_BY_OWNER)
    return `${t.disabled}: ${t.disabledByOwner}`;
  if (s.state === 'disabled') return `${t.disabled}: ${s.disabledReason ?? '—'}`;
  return s.failingSince ? `${t.active} (${t.failingSince} ${formatTime(s.failingSince)})` : t.active;
}

/** A delivery's state in words, with the next attempt of a pending one. */
export function deliveryStateText(d: DeliveryView, lang: Lang): string {
  const t = webhooksText[lang];
  if (d.state === 'pending')
    return `${t.pending} (${t.nextAttempt} ${formatTime(d.nextAt, { seconds: true })})`;
  return t[d.state];
}

export interface WebhooksView {
  lang: Lang;
  header: SafeHtml;
  items: { subscription: Subscription; last: DeliveryView | null }[];
  notice?: string;
}

export function renderWebhooksPage(v: WebhooksView): string {
  const t = webhooksText[v.lang];
  const rows = v.items.map(({ subscription: s, last }) => {
    const lastText = last
      ? `${deliveryStateText(last, v.lang)}, ${formatTime(last.lastAttemptAt ?? last.createdAt)}`
      : '—';
    return markup`<tr>
<td data-label="${t.url}" class="long"><a href="${pathOf(paths.webhook, s.id)}" class="webhook-url">${shownUrl(s.url)}</a></td>
<td data-label="${t.format}">${s.format}</td>
<td data-label="${t.state}" class="long">${stateText(s, v.lang)}</td>
<td data-label="${t.lastDelivery}">${lastText}</td>
</tr>`;
  });
  const table =
    rows.length === 0
      ? markup`<p>${t.none}</p>`
      : markup`<div class="table-wrap"><table class="stack" id="webhooks"><thead><tr><th>${t.url}</th><th>${t.format}</th><th>${t.state}</th><th>${t.lastDelivery}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(v.notice)}
<p><a href="${paths.webhookNew}">${t.create}</a></p>
${table}`,
    { lang: v.lang, header: v.header },
  );
}

export interface WebhookFormView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  values: WebhookFormValues;
  /** The classifications the account's running contracts deliver. */
  contracted: readonly string[];
  problems: WebhookProblems;
  /**
   * The id of the account's newest webhook as the form is drawn (0: none), sent back with it: a
   * webhook of the same URL newer than it means the form was sent already (a reload of the answer).
   */
  newest: number;
  /** A problem of the whole form (the account's cap, the form sent already). */
  alert?: string | SafeHtml;
  /**
   * The form changes this webhook rather than creating one; `keepsToken`: a Misskey one's token is
   * stored; `headerNames`: its request headers' (their values are stored); `held`: its
   * classifications that no running contract delivers (kept while ticked).
   */
  edit?: { id: number; keepsToken: boolean; headerNames: readonly string[]; held: readonly string[] };
}

/** A group of radio buttons, one per value, labelled by `label(value)`. */
function radios(
  v: WebhookFormView,
  field: WebhookField & keyof WebhookFormValues,
  legend: string,
  choices: readonly string[],
  label: (value: string) => string,
  hint?: string,
): SafeHtml {
  const error = v.problems[field];
  const describedBy = [hint ? `${field}-hint` : null, error ? `${field}-error` : null]
    .filter(Boolean)
    .join(' ');
  const boxes = choices.map(
    (c) =>
      markup`<label for="${field}-${c}"><input type="radio" id="${field}-${c}" name="${field}" value="${c}"${
        v.values[field] === c ? markup` checked` : null
      }> ${label(c)}</label>`,
  );
  return markup`<fieldset id="${field}"${describedBy ? markup` aria-describedby="${describedBy}"` : null}><legend>${legend}</legend>
${boxes}
${hint ? markup`<p class="hint" id="${field}-hint">${hint}</p>` : null}
${fieldError(field, error)}</fieldset>`;
}

/** A one-line text field with its hint and, when refused, its error. */
function textField(
  v: WebhookFormView,
  field: 'url' | 'token' | 'mention' | 'types' | 'areas',
  label: string,
  hint: string,
  type = 'text',
): SafeHtml {
  const error = v.problems[field];
  // A token typed is never sent back in a page: after a refusal it is typed again.
  const value = field === 'token' ? '' : v.values[field];
  const extra = field === 'token' ? markup` autocomplete="off"` : null;
  return markup`<label for="${field}">${label}</label>
<input id="${field}" type="${type}" name="${field}" value="${value}" maxlength="2048"${extra}${invalidAttrs(field, error, true)}>
<p class="hint" id="${field}-hint">${hint}</p>
${fieldError(field, error)}`;
}

function classificationField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.classifications;
  const held = v.edit?.held ?? [];
  const boxes = [...v.contracted, ...held].map(
    (c, i) =>
      markup`<label for="classification-${i}"><input type="checkbox" id="classification-${i}" name="classifications" value="${c}"${
        v.values.classifications.includes(c) ? markup` checked` : null
      }> ${planByClassification(c)?.name ?? c} <code>${c}</code>${held.includes(c) ? markup` <span class="muted">(${t.heldNoContract})</span>` : null}</label>`,
  );
  const none =
    v.contracted.length === 0 && held.length === 0
      ? markup`<p class="pointer" id="no-contract">${t.noContract} <a href="${paths.contracts}">${t.contractsLink}</a></p>`
      : null;
  return markup`<fieldset id="classifications"${error ? markup` aria-describedby="classifications-error"` : null}><legend>${t.classifications}</legend>
${none}${boxes}
${fieldError('classifications', error)}</fieldset>`;
}

function intensityField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.minIntensity;
  const options = ['', ...INTENSITIES].map(
    (i) =>
      markup`<option value="${i}"${v.values.minIntensity === i ? markup` selected` : null}>${i === '' ? t.anyIntensity : i}</option>`,
  );
  return markup`<label for="minIntensity">${t.minIntensity}</label>
<select id="minIntensity" name="minIntensity"${invalidAttrs('minIntensity', error)}>${options}</select>
${fieldError('minIntensity', error)}`;
}

/** How a Misskey note's visibility is named. */
export function visibilityText(visibility: MisskeyVisibility, lang: Lang): string {
  return webhooksText[lang][`visibility-${visibility}`];
}

/** The Misskey notes' visibility: a select, described by its hint. */
function visibilityField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.visibility;
  const options = MISSKEY_VISIBILITIES.map(
    (m) =>
      markup`<option value="${m}"${v.values.visibility === m ? markup` selected` : null}>${visibilityText(m, v.lang)}</option>`,
  );
  return markup`<label for="visibility">${t.visibility}</label>
<select id="visibility" name="visibility"${invalidAttrs('visibility', error, true)}>${options}</select>
<p class="hint" id="visibility-hint">${t.visibilityHint}</p>
${fieldError('visibility', error)}`;
}

/** From which severity a Discord or Slack post mentions: a select, described by the mention's hint. */
function mentionOnField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.mentionOn;
  const options = MENTION_THRESHOLDS.map(
    (m) =>
      markup`<option value="${m}"${v.values.mentionOn === m ? markup` selected` : null}>${t[`mentionOn-${m}`]}</option>`,
  );
  return markup`<label for="mentionOn">${t.mentionOn}</label>
<select id="mentionOn" name="mentionOn"${invalidAttrs('mentionOn', error)}>${options}</select>
${fieldError('mentionOn', error)}`;
}

/** Whether Misskey notes stay off federation: a checkbox, described by its hint. */
function localOnlyField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.localOnly;
  return markup`<label for="localOnly"><input type="checkbox" id="localOnly" name="localOnly" value="true"${
    v.values.localOnly ? markup` checked` : null
  }${invalidAttrs('localOnly', error, true)}> ${t.localOnly}</label>
<p class="hint" id="localOnly-hint">${t.localOnlyHint}</p>
${fieldError('localOnly', error)}`;
}

/** Header names, each as code, separated by commas. */
export const headerNameList = (names: readonly string[]): SafeHtml[] =>
  names.map((n, i) => markup`${i > 0 ? ', ' : null}<code>${n}</code>`);

/**
 * The request headers: a text area of `Name: value` lines, never filled (the values are secrets);
 * for a change of a webhook that has some, their names and a box to remove them.
 */
function headersField(v: WebhookFormView): SafeHtml {
  const t = webhooksText[v.lang];
  const error = v.problems.headers;
  const kept = v.edit?.headerNames ?? [];
  const hint =
    kept.length === 0 ? t.headersHint : markup`${t.headersHint} ${t.headersKeep} ${headerNameList(kept)}.`;
  const remove =
    kept.length === 0
      ? null
      : markup`<label for="removeHeaders"><input type="checkbox" id="removeHeaders" name="removeHeaders" value="true"${
          v.values.removeHeaders ? markup` checked` : null
        }> ${t.removeHeaders}</label>`;
  return markup`<label for="headers">${t.headers}</label>
<textarea id="headers" name="headers" rows="3" maxlength="12000" autocomplete="off" spellcheck="false"${invalidAttrs('headers', error, true)}></textarea>
<p class="hint" id="headers-hint">${hint}</p>
${remove}
${fieldError('headers', error)}`;
}

export function renderWebhookFormPage(v: WebhookFormView): string {
  const t = webhooksText[v.lang];
  const formatLabel = (f: string) => t[`format-${f}` as `format-${(typeof WEBHOOK_FORMATS)[number]}`];
  const action = v.edit ? pathOf(paths.webhookEdit, v.edit.id) : paths.webhooks;
  const form = markup`<form method="post" action="${v.origin + action}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${v.edit ? null : newestField(v.newest)}
${textField(v, 'url', t.url, t.urlHint, 'url')}
${radios(v, 'format', t.format, WEBHOOK_FORMATS, formatLabel)}
${textField(v, 'token', t.token, v.edit?.keepsToken ? t.tokenKeep : t.tokenHint, 'password')}
${visibilityField(v)}
${localOnlyField(v)}
${textField(v, 'mention', t.mention, t.mentionHint)}
${mentionOnField(v)}
${headersField(v)}
${radios(v, 'lang', t.lang, ['ja', 'en'], (l) => (l === 'ja' ? t['lang-ja'] : t['lang-en']))}
<h2>${t.filters}</h2>
${classificationField(v)}
${textField(v, 'types', t.types, t.typesHint)}
${radios(v, 'test', t.test, ['no', 'including'], (x) => (x === 'no' ? t['test-no'] : t['test-including']))}
${radios(v, 'formatMode', t.formatMode, ['raw', 'json'], (m) => m, t.formatModeHint)}
${textField(v, 'areas', t.areas, t.areasHint)}
${intensityField(v)}
<button type="submit">${v.edit ? t.save : t.submit}</button>
</form>`;
  const title = v.edit ? `${t.editTitle} #${v.edit.id}` : t.newTitle;
  return page(
    title,
    markup`<h1>${title}</h1>
${formAlert(v.alert)}
<div class="card">${form}</div>`,
    { lang: v.lang, header: v.header },
  );
}
