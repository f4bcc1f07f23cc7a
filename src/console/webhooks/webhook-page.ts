import { planByClassification } from '../../accounts/plans.ts';
import { clip } from '../../webhooks/clip.ts';
import type { DeliveryView } from '../../webhooks/deliveries.ts';
import { mentionsIn } from '../../webhooks/formats/mention.ts';
import type { TelegramSummary } from '../../telegrams/store.ts';
import type { Subscription } from '../../webhooks/subscriptions.ts';
import type { Lang } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { formatTime, notice, secretBox } from '../layout.ts';
import { pathOf, paths } from '../paths.ts';
import { deliveryStateText, headerNameList, shownUrl, stateText, visibilityText } from './webhooks-page.ts';
import { webhooksText } from './text.ts';

/** One webhook's page: its settings, the test button, its recent deliveries; and its deletion. */

export interface WebhookView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  subscription: Subscription;
  /** The page of deliveries shown, newest first. */
  deliveries: DeliveryView[];
  /** Which deliveries: the failed ones only, older than a delivery (a later page). */
  list: DeliveryList;
  /** The id after which an older page follows, when one does. */
  olderThan: number | null;
  /** The failed telegram deliveries kept (the recovery's form shows them). */
  failed: { count: number; oldest: Date | null };
  /** The newest stored telegrams of its classifications, which a test may carry. */
  testTelegrams: TelegramSummary[];
  /** The signing secret, only in the answer to the creation or a rotation. */
  secret?: string;
  /** The time of the answer (a rotated-out secret's end is shown while it is ahead). */
  now: number;
  notice?: string;
  /** The outcome of the test event just sent, announced (role=alert when it failed). */
  tested?: DeliveryView;
}

/** The deliveries a webhook's page lists. */
export interface DeliveryList {
  failedOnly: boolean;
  beforeId: number | null;
}

/** The recovery's choices: how far back the telegrams whose failed deliveries are queued again go. */
export const RECOVERY_PERIODS = {
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '3d': 3 * 24 * 3_600_000,
  '7d': 7 * 24 * 3_600_000,
  // Every delivery kept (docs/webhooks.md "Operations": 30 days).
  all: null,
} as const;
export type RecoveryPeriod = keyof typeof RECOVERY_PERIODS;

/** What the receiver answered to an attempt: its status, else why there was none. */
function responseText(d: DeliveryView): string {
  const parts = [d.lastStatus === null ? null : `HTTP ${d.lastStatus}`, d.lastError];
  const said = parts.filter((p) => p !== null).join(' · ');
  const took = d.lastDurationMs === null ? '' : ` (${d.lastDurationMs} ms)`;
  return said === '' ? '—' : `${said}${took}`;
}

/** Characters of a refusing response's body shown in the page (the API gives its first KiB). */
const SHOWN_RESPONSE = 300;

/** What the receiver answered, and the start of its refusal's body when it sent one. */
function responseShown(d: DeliveryView): SafeHtml {
  const excerpt = d.lastResponse === null ? null : clip(d.lastResponse, SHOWN_RESPONSE);
  return markup`${responseText(d)}${excerpt === null ? null : markup`<br><code class="response-body">${excerpt}</code>`}`;
}

/** A Misskey webhook's note options (the other formats have none: no visibility). */
function noteSettings(s: Subscription, lang: Lang): SafeHtml | null {
  if (s.visibility === null) return null;
  const t = webhooksText[lang];
  return markup`<dt>${t.visibility}</dt><dd id="webhook-visibility">${visibilityText(s.visibility, lang)}</dd>
<dt>${t.localOnly}</dt><dd id="webhook-local-only">${s.localOnly ? t.yes : t.no}</dd>
`;
}

/** A Discord or Slack webhook's mention and from which severity it pings (the other formats have none). */
function mentionSettings(s: Subscription, lang: Lang): SafeHtml | null {
  if (!mentionsIn(s.format)) return null;
  const t = webhooksText[lang];
  const shown =
    s.mention === null ? t.noneSet : markup`<code>${s.mention}</code> (${t[`mentionOn-${s.mentionOn}`]})`;
  return markup`<dt>${t.mentionSetting}</dt><dd id="webhook-mention">${shown}</dd>
`;
}

function settings(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const s = v.subscription;
  const f = s.filter;
  const classes = f.classifications.map(
    (c) => markup`<span class="tag">${planByClassification(c)?.name ?? c} <code>${c}</code></span>`,
  );
  return markup`<div class="card"><dl class="facts" id="webhook-settings">
<dt>${t.url}</dt><dd><code>${s.url}</code></dd>
<dt>${t.format}</dt><dd>${s.format}</dd>
${noteSettings(s, v.lang)}${mentionSettings(s, v.lang)}<dt>${t.headerNames}</dt><dd id="webhook-headers">${
    s.headerNames.length === 0 ? t.noneSet : headerNameList(s.headerNames)
  }</dd>
<dt>${t.lang}</dt><dd>${s.lang === 'ja' ? t['lang-ja'] : t['lang-en']}</dd>
<dt>${t.state}</dt><dd id="webhook-state">${stateText(s, v.lang)}</dd>
<dt>${t.classifications}</dt><dd>${classes}</dd>
<dt>${t.types}</dt><dd>${f.types?.join(', ') ?? t.all}</dd>
<dt>${t.test}</dt><dd>${f.test === 'including' ? t['test-including'] : t['test-no']}</dd>
<dt>${t.formatMode}</dt><dd>${f.formatMode}</dd>
<dt>${t.areas}</dt><dd>${f.areas?.join(', ') ?? t.everywhere}</dd>
<dt>${t.minIntensity}</dt><dd>${f.minIntensity ?? t.anyIntensity}</dd>
<dt>${t.created}</dt><dd>${formatTime(s.createdAt)}</dd>
</dl></div>`;
}

function deliveryTable(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const hidden = markup`<input type="hidden" name="csrf" value="${v.csrf}">`;
  const rows = v.deliveries.map((d) => {
    const what = d.serial === null ? t.testEvent : (d.telegramId ?? `#${d.serial}`);
    // A disabled webhook redelivers nothing: it is enabled again first (its form above).
    const again =
      d.serial !== null && d.state !== 'pending' && v.subscription.state === 'active'
        ? markup`<form method="post" action="${v.origin + pathOf(paths.webhookRedeliver, v.subscription.id)}">${hidden}<input type="hidden" name="delivery" value="${d.id}"><button type="submit" class="secondary" aria-label="${t.redeliver} #${d.id}">${t.redeliver}</button></form>`
        : null;
    return markup`<tr id="delivery-${d.id}">
<td data-label="${t.delivery}" class="long">#${d.id} <span class="muted">${what}</span></td>
<td data-label="${t.state}">${deliveryStateText(d, v.lang)}</td>
<td data-label="${t.attempts}">${d.attempts}</td>
<td data-label="${t.response}" class="long">${responseShown(d)}</td>
<td data-label="${t.time}">${formatTime(d.lastAttemptAt, { seconds: true })}</td>
<td>${again}</td>
</tr>`;
  });
  if (rows.length === 0)
    return markup`<p id="no-deliveries">${v.list.failedOnly ? t.noFailedDeliveries : t.noDeliveries}</p>`;
  return markup`<div class="table-wrap"><table class="stack" id="deliveries"><thead><tr><th>${t.delivery}</th><th>${t.state}</th><th>${t.attempts}</th><th>${t.response}</th><th>${t.time}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** The link to a page of the webhook's deliveries (its page, which lists them). */
function listHref(v: WebhookView, failedOnly: boolean, beforeId: number | null): string {
  const query = [failedOnly ? 'deliveries=failed' : null, beforeId === null ? null : `before=${beforeId}`];
  const shown = query.filter((q) => q !== null).join('&');
  return `${pathOf(paths.webhook, v.subscription.id)}${shown === '' ? '' : `?${shown}`}#deliveries-heading`;
}

/** Every delivery or the failed ones, and the pages before and after the one shown. */
function deliveryList(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const { failedOnly, beforeId } = v.list;
  const choice = (only: boolean, label: string) =>
    only === failedOnly
      ? markup`<a href="${listHref(v, only, null)}" aria-current="page">${label}</a>`
      : markup`<a href="${listHref(v, only, null)}">${label}</a>`;
  const pages = [
    beforeId === null
      ? null
      : markup`<a href="${listHref(v, failedOnly, null)}" id="newest-deliveries">${t.newestDeliveries}</a>`,
    v.olderThan === null
      ? null
      : markup`<a href="${listHref(v, failedOnly, v.olderThan)}" id="older-deliveries">${t.olderDeliveries}</a>`,
  ].filter((p) => p !== null);
  return markup`<nav aria-labelledby="deliveries-heading"><p id="delivery-filter">${t.showDeliveries}: ${choice(false, t.allDeliveries)} · ${choice(true, t.failedDeliveries)}</p></nav>
${deliveryTable(v)}
${pages.length > 0 ? markup`<p id="delivery-pages">${pages.map((p, i) => (i === 0 ? p : markup` · ${p}`))}</p>` : null}`;
}

/**
 * The failed deliveries queued again together, those of telegrams received in a chosen time: shown
 * while the webhook is active and has some.
 */
function recoverForm(v: WebhookView): SafeHtml | null {
  if (v.subscription.state !== 'active' || v.failed.count === 0) return null;
  const t = webhooksText[v.lang];
  const kept = t.failedKept
    .replace('%s', () => String(v.failed.count))
    .replace('%s', () => formatTime(v.failed.oldest));
  const options = (Object.keys(RECOVERY_PERIODS) as RecoveryPeriod[]).map(
    (p) => markup`<option value="${p}"${p === '24h' ? markup` selected` : null}>${t[`period-${p}`]}</option>`,
  );
  return markup`<h3 id="recover-heading">${t.recover}</h3>
<form method="post" action="${v.origin + pathOf(paths.webhookRecover, v.subscription.id)}" aria-labelledby="recover-heading"><input type="hidden" name="csrf" value="${v.csrf}">
<p id="failed-kept">${kept}</p>
<p class="muted" id="recover-hint">${t.recoverHint}</p>
<label for="recover-period">${t.recoverPeriod}</label>
<select id="recover-period" name="period" aria-describedby="recover-hint">${options}</select>
<button type="submit">${t.recover}</button></form>`;
}

/**
 * A disabled webhook's way back, enabled again by its owner; an active one's pause (docs/webhooks.md
 * "Subscriptions").
 */
function stateForm(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const disabled = v.subscription.state === 'disabled';
  const [path, label, hint] = disabled
    ? [paths.webhookEnable, t.enable, t.enableHint]
    : [paths.webhookDisable, t.disable, t.disableHint];
  return markup`<h2>${label}</h2>
<form method="post" action="${v.origin + pathOf(path, v.subscription.id)}"><input type="hidden" name="csrf" value="${v.csrf}">
<p class="muted" id="state-hint">${hint}</p><button type="submit"${disabled ? null : markup` class="secondary"`} aria-describedby="state-hint">${label}</button></form>`;
}

/**
 * The signing secret: since when it is the current one (and until when the one it replaced still
 * signs), and its rotation. The form carries the secret's time: sent again, it rotates nothing.
 */
function secretSection(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const s = v.subscription;
  const previous =
    s.previousSecretUntil && s.previousSecretUntil.getTime() > v.now ? s.previousSecretUntil : null;
  const choice = (value: string, label: string, checked: boolean) =>
    markup`<label for="previous-${value}"><input type="radio" id="previous-${value}" name="previous" value="${value}"${checked ? markup` checked` : null}> ${label}</label>`;
  return markup`<h2>${t.rotate}</h2>
<p id="secret-since">${t.secretSince} ${formatTime(s.secretFrom)}${previous ? markup`; ${t.previousUntil} ${formatTime(previous)}` : null}</p>
<form method="post" action="${v.origin + pathOf(paths.webhookSecret, s.id)}"><input type="hidden" name="csrf" value="${v.csrf}"><input type="hidden" name="secretFrom" value="${s.secretFrom.toISOString()}">
<p class="muted" id="rotate-hint">${t.rotateHint}</p>
<fieldset id="previous"><legend>${t.previousLegend}</legend>
${choice('day', t.previousDay, true)}
${choice('none', t.previousNone, false)}</fieldset>
<button type="submit" aria-describedby="rotate-hint">${t.rotate}</button></form>`;
}

/** The test event, carrying one of the newest stored telegrams when one is chosen. */
function testForm(v: WebhookView): SafeHtml {
  const t = webhooksText[v.lang];
  const options = v.testTelegrams.map(
    (r) =>
      markup`<option value="${r.id}">${r.head.type} ${r.xmlReport?.head.title ?? ''} · ${formatTime(new Date(r.receivedTime))}</option>`,
  );
  const choice =
    options.length === 0
      ? null
      : markup`<label for="test-telegram">${t.testWhat}</label>
<select id="test-telegram" name="telegram" aria-describedby="send-test-hint"><option value="">${t.testEventOnly}</option>${options}</select>`;
  // A test never pings, unless its owner asks to see the mention do so.
  const mention =
    v.subscription.mention === null
      ? null
      : markup`<label for="test-mention"><input type="checkbox" id="test-mention" name="mention" value="true"> ${t.testWithMention} <code>${v.subscription.mention}</code></label>`;
  return markup`<h2>${t.sendTest}</h2>
<form method="post" action="${v.origin + pathOf(paths.webhookTest, v.subscription.id)}"><input type="hidden" name="csrf" value="${v.csrf}">
<p class="muted" id="send-test-hint">${t.sendTestHint}</p>${choice}${mention}
<button type="submit" aria-describedby="send-test-hint">${t.sendTest}</button></form>`;
}

/** The test event's outcome, announced: a notice when delivered, an alert when not. */
function testOutcome(v: WebhookView): SafeHtml | null {
  const d = v.tested;
  if (!d) return null;
  const t = webhooksText[v.lang];
  return d.state === 'delivered'
    ? markup`<p class="notice" role="status" id="test-outcome">${t.tested}: ${responseText(d)}</p>`
    : markup`<p class="alert" role="alert" id="test-outcome">${t.testFailed}: ${responseShown(d)}</p>`;
}

export function renderWebhookPage(v: WebhookView): string {
  const t = webhooksText[v.lang];
  const s = v.subscription;
  const title = `Webhook #${s.id}: ${shownUrl(s.url)}`;
  return page(
    title,
    markup`<h1>Webhook #${s.id}</h1>
${notice(v.notice)}
${testOutcome(v)}
${v.secret ? secretBox('new-secret', t.secret, v.secret, v.lang) : null}
<h2>${t.settings}</h2>
${settings(v)}
<p><a href="${pathOf(paths.webhookEdit, s.id)}" id="edit-link">${t.edit}</a></p>
${s.state === 'disabled' ? stateForm(v) : null}
${testForm(v)}
<h2 id="deliveries-heading">${t.deliveries}</h2>
${deliveryList(v)}
${recoverForm(v)}
${secretSection(v)}
${s.state === 'active' ? stateForm(v) : null}
<h2>${t.delete}</h2>
<p class="muted">${t.deleteHint}</p>
<p><a href="${pathOf(paths.webhookDelete, s.id)}" id="delete-link">${t.delete}</a></p>`,
    { lang: v.lang, header: v.header, copyScript: v.secret !== undefined },
  );
}

export interface DeleteView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  subscription: Subscription;
}

/** The confirmation asked before a deletion (a page of its own: it works without script). */
export function renderDeleteWebhookPage(v: DeleteView): string {
  const t = webhooksText[v.lang];
  const s = v.subscription;
  return page(
    t.deleteConfirm,
    markup`<h1>${t.deleteConfirm} #${s.id}</h1>
<div class="card"><p><code>${shownUrl(s.url)}</code> · ${s.format}</p>
<p class="alert" id="delete-question">${t.deleteQuestion}</p>
<form method="post" action="${v.origin + pathOf(paths.webhookDelete, s.id)}"><input type="hidden" name="csrf" value="${v.csrf}">
<button type="submit" class="danger" aria-describedby="delete-question">${t.deleteConfirm}</button>
<a href="${pathOf(paths.webhook, s.id)}">${t.cancel}</a></form></div>`,
    { lang: v.lang, header: v.header },
  );
}
