import type { FastifyReply } from 'fastify';
import { contractedClassifications } from '../../accounts/contracts.ts';
import type { AppContext } from '../../context.ts';
import { singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { failedDeliveries, recentDeliveries, recoverFailed, redeliver } from '../../webhooks/deliveries.ts';
import { KEPT_TOKEN, keepsStoredToken } from '../../webhooks/note-options.ts';
import type { WebhookService } from '../../webhooks/service.ts';
import { telegramForTest } from '../../webhooks/test-event.ts';
import { queryTelegrams } from '../../telegrams/store.ts';
import {
  deleteSubscription,
  disableSubscription,
  enableSubscription,
  rotateSecret,
  updateSubscription,
  DEFAULT_PREVIOUS_SECRET_MS,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  subscriptionMadeAfter,
  type Subscription,
} from '../../webhooks/subscriptions.ts';
import type { SafeHtml } from '../html.ts';
import { createOnce, newestId, sentAgainAlert } from '../sent-again.ts';
import { pathOf, paths } from '../paths.ts';
import { checkedForm, guardVisits, rowId, type QueryOf, type Visit } from '../visit.ts';
import {
  checkWebhookForm,
  emptyWebhookForm,
  keepsStoredHeaders,
  webhookFormValues,
  webhookFormValuesOf,
  webhookRules,
  type WebhookFormValues,
  type WebhookProblems,
} from './form.ts';
import {
  RECOVERY_PERIODS,
  renderDeleteWebhookPage,
  renderWebhookPage,
  type DeliveryList,
  type RecoveryPeriod,
  type WebhookView,
} from './webhook-page.ts';
import { renderWebhookFormPage, renderWebhooksPage } from './webhooks-page.ts';
import { webhooksText } from './text.ts';
import { sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/**
 * The Webhooks area (docs/console.md "Webhooks"): the account's webhook subscriptions, through the
 * same functions and the same delivery as `/v2/webhook` (no API scope: the console acts for the
 * signed-in account).
 */

/** Deliveries shown on a webhook's page, newest first (as `GET /v2/webhook/:id`). */
const RECENT_DELIVERIES = 20;

type WebhookParams = { Params: { id: string } };
/** A form about one webhook: sign-in leads back to the list. */
const onWebhook = { config: { returnTo: paths.webhooks } };

/** The visit's own webhook named by the path, or null after answering 404. */
async function ownWebhook(
  ctx: AppContext,
  reply: FastifyReply,
  visit: Visit,
  param: string,
): Promise<Subscription | null> {
  const id = rowId(param);
  const found = id === null ? null : await findSubscription(ctx.db, visit.account.id, id);
  if (!found) sendErrorPage(reply, 404, webhooksText[visit.lang].noWebhook);
  return found;
}

/**
 * The webhook a settings form changes: `keepsToken`, a Misskey one's token is stored; `headerNames`,
 * its request headers'.
 */
interface Edit {
  id: number;
  keepsToken: boolean;
  headerNames: readonly string[];
  classifications: readonly string[];
}

/** The classifications the webhook holds that no running contract delivers: kept while ticked. */
const heldWithoutContract = (edit: Edit, contracted: ReadonlySet<string>) =>
  edit.classifications.filter((c) => !contracted.has(c));

async function showForm(
  ctx: AppContext,
  reply: FastifyReply,
  status: number,
  visit: Visit,
  form: {
    values: WebhookFormValues;
    problems?: WebhookProblems;
    alert?: string | SafeHtml;
    edit?: Edit;
  },
) {
  const contracted = await contractedClassifications(ctx.db, visit.account.id);
  const edit = form.edit && { ...form.edit, held: heldWithoutContract(form.edit, contracted) };
  return sendPage(
    reply,
    status,
    renderWebhookFormPage({
      lang: visit.lang,
      header: visit.header('webhooks', edit ? pathOf(paths.webhookEdit, edit.id) : paths.webhookNew),
      origin: visit.origin,
      csrf: visit.csrf,
      values: form.values,
      contracted: [...contracted],
      newest: await newestId(ctx.db, 'webhook_subscriptions', visit.account.id),
      problems: form.problems ?? {},
      alert: form.alert,
      edit,
    }),
  );
}

/** Stored telegrams a test of the webhook may carry, offered on its page. */
const TEST_TELEGRAMS = 10;

/** The newest stored telegrams (XML, tests included) of the webhook's classifications under contract. */
async function telegramsToTestWith(ctx: AppContext, accountId: number, s: Subscription) {
  const contracted = await contractedClassifications(ctx.db, accountId);
  const classifications = s.filter.classifications.filter((c) => contracted.has(c));
  if (classifications.length === 0) return [];
  return queryTelegrams(ctx.db, {
    classifications,
    test: 'including',
    formats: ['xml'],
    limit: TEST_TELEGRAMS,
    withXmlReport: true,
  });
}

async function showWebhook(
  ctx: AppContext,
  reply: FastifyReply,
  status: number,
  visit: Visit,
  subscription: Subscription,
  extra: Pick<WebhookView, 'secret' | 'notice' | 'tested'> = {},
  list: DeliveryList = { failedOnly: false, beforeId: null },
) {
  // One more than the page: whether an older page follows.
  const found = await recentDeliveries(ctx.db, subscription.id, {
    limit: RECENT_DELIVERIES + 1,
    ...(list.failedOnly ? { state: 'failed' as const } : {}),
    ...(list.beforeId === null ? {} : { beforeId: list.beforeId }),
  });
  const deliveries = found.slice(0, RECENT_DELIVERIES);
  return sendPage(
    reply,
    status,
    renderWebhookPage({
      lang: visit.lang,
      header: visit.header('webhooks', pathOf(paths.webhook, subscription.id)),
      origin: visit.origin,
      csrf: visit.csrf,
      subscription,
      now: ctx.clock.now(),
      deliveries,
      list,
      olderThan: found.length > RECENT_DELIVERIES ? deliveries[deliveries.length - 1]!.id : null,
      failed: await failedDeliveries(ctx.db, subscription.id),
      testTelegrams: await telegramsToTestWith(ctx, visit.account.id, subscription),
      ...extra,
    }),
  );
}

export async function webhooksArea(area: App, { ctx }: { ctx: AppContext }): Promise<void> {
  const service = area.webhooks;
  guardVisits(area, ctx);
  listRoutes(area, ctx, service);
  webhookRoutes(area, ctx, service);
  settingsRoutes(area, ctx, service);
}

/** The list, the creation form and the creation. */
function listRoutes(area: App, ctx: AppContext, service: WebhookService): void {
  area.get<{ Querystring: QueryOf<'deleted'> }>(paths.webhooks, async (request, reply) => {
    const { visit } = request;
    const subscriptions = await listSubscriptions(ctx.db, visit.account.id);
    // At most the account's cap of subscriptions, one short read each.
    const items = await Promise.all(
      subscriptions.map(async (subscription) => {
        const [last] = await recentDeliveries(ctx.db, subscription.id, { limit: 1 });
        return { subscription, last: last ?? null };
      }),
    );
    return sendPage(
      reply,
      200,
      renderWebhooksPage({
        lang: visit.lang,
        header: visit.header('webhooks', paths.webhooks),
        items,
        notice: request.query.deleted === '1' ? webhooksText[visit.lang].deleted : undefined,
      }),
    );
  });

  area.get(paths.webhookNew, async (request, reply) =>
    showForm(ctx, reply, 200, request.visit, { values: emptyWebhookForm }),
  );

  area.post(paths.webhooks, { config: { returnTo: paths.webhookNew } }, async (request, reply) => {
    const { visit } = request;
    const t = webhooksText[visit.lang];
    const form = checkedForm(request);
    const values = webhookFormValues(form);
    const contracted = await contractedClassifications(ctx.db, visit.account.id);
    const checked = checkWebhookForm(values, contracted, ctx.config.webhookAllowPrivate, visit.lang);
    if (!checked.ok) return showForm(ctx, reply, 400, visit, { values, problems: checked.problems });
    // Sent again (a reload of the answer, Back and resend, a double click): nothing made twice.
    const outcome = await createOnce(ctx.db, visit.account.id, form, {
      madeAfter: (q, newest) => subscriptionMadeAfter(q, visit.account.id, newest, checked.spec.url),
      create: (q) => insertSubscription(q, service.box, visit.account.id, checked.spec, checked.host),
    });
    if ('made' in outcome) {
      const { id } = outcome.made;
      const link = { href: pathOf(paths.webhook, id), label: `${t.sentAlreadyLink} #${id}` };
      return showForm(ctx, reply, 409, visit, { values, alert: sentAgainAlert(t.sentAlready, link) });
    }
    const { created } = outcome;
    if (!created.ok && created.reason === 'full')
      return showForm(ctx, reply, 409, visit, { values, alert: t.cap });
    if (!created.ok) {
      // A contract ended between the form and the creation.
      const problems = { classifications: webhookRules[visit.lang].notContracted };
      return showForm(ctx, reply, 400, visit, { values, problems });
    }
    // The secret appears only in this answer (not cached, never in a URL).
    return showWebhook(ctx, reply, 201, visit, created.subscription, {
      secret: created.secret,
      notice: t.createdNotice,
    });
  });
}

/** What a webhook's page is asked: the notice of what was just done, and which deliveries to list. */
type PageQuery =
  'tested' | 'redelivered' | 'recovered' | 'enabled' | 'disabled' | 'updated' | 'deliveries' | 'before';

/** The notice of what was just done, which the redirect after it names. */
function pageNotice(query: QueryOf<PageQuery>, lang: Visit['lang']): string | undefined {
  const t = webhooksText[lang];
  const recovered = rowId(query.recovered);
  if (query.recovered === '0') return t.recoveredNone;
  if (recovered !== null) return t.recovered.replace('%s', () => String(recovered));
  const notices = {
    redelivered: t.redelivered,
    enabled: t.enabled,
    disabled: t.disabledNotice,
    updated: t.updated,
  } as const;
  const notice = (Object.keys(notices) as (keyof typeof notices)[]).find((k) => query[k] === '1');
  return notice && notices[notice];
}

/** One webhook: its page, the test event, a redelivery or recovery, the deletion. */
function webhookRoutes(area: App, ctx: AppContext, service: WebhookService): void {
  area.get<WebhookParams & { Querystring: QueryOf<PageQuery> }>(paths.webhook, async (request, reply) => {
    const { visit, query } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    const testedId = rowId(query.tested);
    const [tested] =
      testedId === null ? [] : await recentDeliveries(ctx.db, s.id, { limit: 1, id: testedId });
    const list = { failedOnly: query.deliveries === 'failed', beforeId: rowId(query.before) };
    return showWebhook(ctx, reply, 200, visit, s, { tested, notice: pageNotice(query, visit.lang) }, list);
  });

  area.post<WebhookParams>(paths.webhookTest, onWebhook, async (request, reply) => {
    const { visit } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    const form = checkedForm(request);
    const chosen = singleValue(form, 'telegram') ?? '';
    const telegram = chosen === '' ? null : await telegramForTest(ctx.db, s, chosen);
    if (chosen !== '' && !telegram) return sendErrorPage(reply, 400, webhooksText[visit.lang].noTestTelegram);
    const withMention = singleValue(form, 'mention') === 'true' && s.mention !== null;
    const tested = await service.sendTest(s, telegram ?? undefined, withMention);
    if (!tested) return sendErrorPage(reply, 404, webhooksText[visit.lang].noWebhook);
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.webhook, s.id)}?tested=${tested.deliveryId}`);
  });

  area.post<WebhookParams>(paths.webhookRedeliver, onWebhook, async (request, reply) => {
    const { visit } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    if (s.state === 'disabled')
      return sendErrorPage(reply, 409, webhooksText[visit.lang].disabledNoRedelivery);
    const deliveryId = rowId(singleValue(checkedForm(request), 'delivery') ?? undefined);
    if (deliveryId !== null && (await redeliver(ctx.db, s.id, deliveryId))) service.wake();
    const [found] =
      deliveryId === null ? [] : await recentDeliveries(ctx.db, s.id, { limit: 1, id: deliveryId });
    if (!found || found.serial === null)
      return sendErrorPage(reply, 404, webhooksText[visit.lang].noDelivery);
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.webhook, s.id)}?redelivered=1`);
  });

  area.post<WebhookParams>(paths.webhookRecover, onWebhook, async (request, reply) => {
    const { visit } = request;
    const t = webhooksText[visit.lang];
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    if (s.state === 'disabled') return sendErrorPage(reply, 409, t.disabledNoRedelivery);
    const period = singleValue(checkedForm(request), 'period') ?? '';
    if (!Object.hasOwn(RECOVERY_PERIODS, period)) return sendErrorPage(reply, 400, t.recoverMalformed);
    const back = RECOVERY_PERIODS[period as RecoveryPeriod];
    const from = back === null ? {} : { from: new Date(ctx.clock.now() - back) };
    const recovered = await recoverFailed(ctx.db, s.id, from);
    if (recovered > 0) service.wake();
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.webhook, s.id)}?recovered=${recovered}`);
  });

  area.get<WebhookParams>(paths.webhookDelete, async (request, reply) => {
    const { visit } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    const header = visit.header('webhooks', pathOf(paths.webhookDelete, s.id));
    const { lang, origin, csrf } = visit;
    return sendPage(reply, 200, renderDeleteWebhookPage({ lang, header, origin, csrf, subscription: s }));
  });

  area.post<WebhookParams>(paths.webhookDelete, onWebhook, async (request, reply) => {
    const { visit } = request;
    const id = rowId(request.params.id);
    if (id === null || !(await deleteSubscription(ctx.db, visit.account.id, id)))
      return sendErrorPage(reply, 404, webhooksText[visit.lang].noWebhook);
    return sendRedirect(reply, `${visit.origin}${paths.webhooks}?deleted=1`);
  });
}

/** A webhook's settings: changed, its secret rotated, disabled and enabled again. */
function settingsRoutes(area: App, ctx: AppContext, service: WebhookService): void {
  for (const [path, change, done] of [
    [paths.webhookEnable, enableSubscription, 'enabled'],
    [paths.webhookDisable, disableSubscription, 'disabled'],
  ] as const) {
    area.post<WebhookParams>(path, onWebhook, async (request, reply) => {
      const { visit } = request;
      const id = rowId(request.params.id);
      const changed = id === null ? null : await change(ctx.db, visit.account.id, id);
      if (!changed) return sendErrorPage(reply, 404, webhooksText[visit.lang].noWebhook);
      return sendRedirect(reply, `${visit.origin}${pathOf(paths.webhook, changed.id)}?${done}=1`);
    });
  }

  /**
   * The settings form of `s`: a Misskey webhook's token and any webhook's request headers are
   * stored, and kept when none are typed.
   */
  const editOf = (s: Subscription): Edit => ({
    id: s.id,
    keepsToken: s.format === 'misskey',
    headerNames: s.headerNames,
    classifications: s.filter.classifications,
  });

  area.get<WebhookParams>(paths.webhookEdit, async (request, reply) => {
    const { visit } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    return showForm(ctx, reply, 200, visit, { values: webhookFormValuesOf(s), edit: editOf(s) });
  });

  area.post<WebhookParams>(paths.webhookEdit, onWebhook, async (request, reply) => {
    const { visit } = request;
    const s = await ownWebhook(ctx, reply, visit, request.params.id);
    if (!s) return reply;
    const edit = editOf(s);
    const values = webhookFormValues(checkedForm(request));
    const keepToken = keepsStoredToken(s.format, values.format, values.token !== '');
    const contracted = await contractedClassifications(ctx.db, visit.account.id);
    const held = heldWithoutContract(edit, contracted);
    const keepHeaders = keepsStoredHeaders(values);
    const checked = checkWebhookForm(
      keepToken ? { ...values, token: KEPT_TOKEN } : values,
      new Set([...contracted, ...held]),
      ctx.config.webhookAllowPrivate,
      visit.lang,
      s.headerNames,
    );
    if (!checked.ok) return showForm(ctx, reply, 400, visit, { values, problems: checked.problems, edit });
    const { spec, host } = checked;
    const change = { spec, host, newClassifications: true, keepToken, keepHeaders, held };
    const updated = await updateSubscription(ctx.db, service.box, visit.account.id, s.id, change);
    if (!updated.ok && updated.reason === 'no-contract') {
      const problems = { classifications: webhookRules[visit.lang].notContracted };
      return showForm(ctx, reply, 400, visit, { values, problems, edit });
    }
    if (!updated.ok) return sendErrorPage(reply, 404, webhooksText[visit.lang].noWebhook);
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.webhook, s.id)}?updated=1`);
  });

  area.post<WebhookParams>(paths.webhookSecret, onWebhook, async (request, reply) => {
    const { visit } = request;
    const t = webhooksText[visit.lang];
    const form = checkedForm(request);
    const previous = singleValue(form, 'previous');
    const secretFrom = new Date(singleValue(form, 'secretFrom') ?? '');
    const id = rowId(request.params.id);
    if (id === null) return sendErrorPage(reply, 404, t.noWebhook);
    if ((previous !== 'day' && previous !== 'none') || Number.isNaN(secretFrom.getTime()))
      return sendErrorPage(reply, 400, t.rotateMalformed);
    const previousMs = previous === 'day' ? DEFAULT_PREVIOUS_SECRET_MS : 0;
    const rotated = await rotateSecret(ctx.db, service.box, visit.account.id, id, previousMs, secretFrom);
    if (!rotated.ok && rotated.reason === 'rotated') return sendErrorPage(reply, 409, t.rotatedAlready);
    if (!rotated.ok) return sendErrorPage(reply, 404, t.noWebhook);
    // The new secret appears only in this answer (not cached, never in a URL).
    return showWebhook(ctx, reply, 200, visit, rotated.subscription, {
      secret: rotated.secret,
      notice: t.rotatedNotice,
    });
  });
}
