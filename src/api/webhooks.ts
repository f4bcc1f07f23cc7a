/**
 * Webhook subscriptions on the data API (docs/webhooks.md "Subscriptions"): POST /v2/webhook
 * (create; the signing secret is shown once), GET /v2/webhook (list), GET /v2/webhook/:id (settings,
 * state, recent deliveries), DELETE /v2/webhook/:id, POST /v2/webhook/:id/test, POST
 * /v2/webhook/:id/secret (a new secret, the old one signing beside it for a while), POST
 * /v2/webhook/:id/enable and /disable (its owner's pause), and its deliveries (webhook-deliveries.ts).
 * Registering this surface starts the process's webhook delivery (webhooks/service.ts).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { planByClassification } from '../accounts/plans.ts';
import { requireScope } from '../access/authenticate.ts';
import type { Principal } from '../access/principal.ts';
import type { AppContext } from '../context.ts';
import { okBody } from '../http/envelope.ts';
import { HttpError, documentedValidation } from '../http/errors.ts';
import { acceptJsonWhateverType, ignoreBodies, NOT_JSON_MESSAGE } from '../http/json-body.ts';
import type { App } from '../http/surface.ts';
import { classScope } from '../scopes.ts';
import { INTENSITIES } from '../telegrams/facts.ts';
import {
  AREA_CODE_PATTERN,
  MAX_AREAS,
  parsePlaceFilters,
  placeFilterMessages,
} from '../telegrams/place-filters.ts';
import { recentDeliveries } from '../webhooks/deliveries.ts';
import { MENTION_THRESHOLDS, checkMention, mentionsIn } from '../webhooks/formats/mention.ts';
import { MISSKEY_VISIBILITIES } from '../webhooks/formats/misskey.ts';
import {
  KEPT_TOKEN,
  MAX_TOKEN_LENGTH,
  checkNoteOptions,
  keepsStoredToken,
} from '../webhooks/note-options.ts';
import {
  MAX_EXTRA_HEADERS,
  MAX_HEADER_NAME_LENGTH,
  MAX_HEADER_VALUE_LENGTH,
  checkExtraHeaders,
  headerNamesAllowed,
} from '../webhooks/extra-headers.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { telegramForTest } from '../webhooks/test-event.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import {
  MAX_SUBSCRIPTIONS_PER_ACCOUNT,
  WEBHOOK_FORMATS,
  createSubscription,
  deleteSubscription,
  disableSubscription,
  enableSubscription,
  rotateSecret,
  updateSubscription,
  MAX_PREVIOUS_SECRET_MS,
  DEFAULT_PREVIOUS_SECRET_MS,
  listSubscriptions,
  type Subscription,
  type SubscriptionSpec,
  type WebhookFormat,
} from '../webhooks/subscriptions.ts';
import { MAX_URL_LENGTH, checkWebhookUrl } from '../webhooks/url-check.ts';
import { sharedPlugins, surfacePlugin } from '../http/plugins.ts';
import { deliveryView, registerDeliveryList, registerRedeliveries } from './webhook-deliveries.ts';
import { about, idParams, ownSubscription, positiveInt } from './webhook-params.ts';

/** Deliveries shown with one subscription, newest first. */
const RECENT_DELIVERIES = 20;

/** The fields' messages (docs/api-contract.md "Errors", docs/webhooks.md "Bad input"). */
export const webhookMessages = {
  url: `The \`url\` is an absolute https URL of up to ${MAX_URL_LENGTH} characters.`,
  classifications: 'At least one element of `classifications` is required.',
  types: 'The `types` is not a string or has more than 30 elements.',
  test: 'The `test` is `no` or `including`.',
  formatMode: 'You have entered a string that is not defined in `formatMode`.',
  ...placeFilterMessages,
  format: `The \`format\` is one of ${WEBHOOK_FORMATS.join(', ')}.`,
  lang: 'The `lang` is `ja` or `en`.',
  token: `The \`token\` (up to ${MAX_TOKEN_LENGTH} characters) is required with format \`misskey\`, and only with it.`,
  visibility: `The \`visibility\` is one of ${MISSKEY_VISIBILITIES.join(', ')}, and only with format \`misskey\`.`,
  localOnly: 'The `localOnly` is `true` or `false`, and only with format `misskey`.',
  mention:
    'The `mention` is one Discord (`<@&role id>`, `<@user id>`, `@here`, `@everyone`) or Slack (`<!channel>`, `<!here>`, `<!everyone>`, `<@user id>`, `<!subteam^group id>`) reads, and only with its format.',
  mentionOn: 'The `mentionOn` is `urgent` or `high`.',
  headers: `The \`headers\` is an object of at most ${MAX_EXTRA_HEADERS} request headers, each name an HTTP token of up to ${MAX_HEADER_NAME_LENGTH} characters given once, each value printable ASCII of 1 to ${MAX_HEADER_VALUE_LENGTH} characters, and none of those the delivery sets itself (Content-Type, Content-Length, Host, User-Agent, the connection's, webhook-*; with format \`ntfy\`, Title, Priority, Tags and their aliases).`,
  testMention: 'The `mention` (query) is `true` or `false`, and `true` only for a webhook with a mention.',
  telegramId:
    'The `telegramId` names no stored telegram of a classification this webhook receives and the account has a contract for.',
  previousValidSeconds: `The \`previousValidSeconds\` is a whole number of seconds from 0 to ${MAX_PREVIOUS_SECRET_MS / 1000} (7 days).`,
} as const;

/** How long a rotated-out secret goes on signing: the query's seconds, a day when not given. */
function previousValidMs(raw: unknown): number {
  if (raw === undefined) return DEFAULT_PREVIOUS_SECRET_MS;
  const seconds = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds * 1000 <= MAX_PREVIOUS_SECRET_MS))
    throw new HttpError('INVALID_FIELD', { detail: webhookMessages.previousValidSeconds });
  return seconds * 1000;
}

/** Why a URL was refused, in the message that names the `url` field. */
const urlRefusals = {
  malformed: webhookMessages.url,
  scheme: 'The `url` must be https (http only where the server sets NAMAZU_WEBHOOK_ALLOW_PRIVATE=true).',
  credentials: 'The `url` may not hold a user name or password.',
  address:
    'The `url` points at a loopback, private, link-local or metadata address, which is refused (a receiver on a local network needs NAMAZU_WEBHOOK_ALLOW_PRIVATE=true on the server).',
} as const;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const filterName = Type.String({ minLength: 1, maxLength: 64 });

export const WebhookCreateBody = Type.Object(
  {
    url: Type.String({ maxLength: MAX_URL_LENGTH, description: 'Where to POST: an https URL' }),
    classifications: Type.Array(filterName, { minItems: 1, maxItems: 32 }),
    types: Type.Optional(Nullable(Type.Array(filterName, { maxItems: 30 }))),
    test: Type.Optional(Nullable(Type.Union([Type.Literal('no'), Type.Literal('including')]))),
    formatMode: Type.Optional(Nullable(Type.Union([Type.Literal('raw'), Type.Literal('json')]))),
    areas: Type.Optional(
      Nullable(Type.Array(Type.String({ pattern: AREA_CODE_PATTERN }), { maxItems: MAX_AREAS })),
    ),
    minIntensity: Type.Optional(Nullable(Type.Union(INTENSITIES.map((i) => Type.Literal(i))))),
    format: Type.Optional(
      Nullable(
        Type.Union(
          WEBHOOK_FORMATS.map((f) => Type.Literal(f)),
          { description: '`namazu` (default): the `data` message; or a ready-made post' },
        ),
      ),
    ),
    lang: Type.Optional(Nullable(Type.Union([Type.Literal('ja'), Type.Literal('en')]))),
    token: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: MAX_TOKEN_LENGTH }))),
    visibility: Type.Optional(
      Nullable(
        Type.Union(
          MISSKEY_VISIBILITIES.map((v) => Type.Literal(v)),
          { description: "`misskey` only: the notes' visibility (default `public`)" },
        ),
      ),
    ),
    localOnly: Type.Optional(
      Nullable(
        Type.Boolean({ description: '`misskey` only: keep the notes off federation (default false)' }),
      ),
    ),
    mention: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description: '`discord`, `slack`: written before the posts of severe telegrams (`mentionOn`)',
        }),
      ),
    ),
    mentionOn: Type.Optional(
      Nullable(
        Type.Union(
          MENTION_THRESHOLDS.map((m) => Type.Literal(m)),
          {
            description:
              '`urgent` (default): early-warning warnings, major tsunami warnings; `high` adds every severe telegram',
          },
        ),
      ),
    ),
    headers: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.String(), {
          maxProperties: MAX_EXTRA_HEADERS,
          description:
            'Request headers of its own, sent with every attempt (their values are never shown again)',
        }),
      ),
    ),
  },
  { additionalProperties: true },
);

/** A change of a subscription: any of the creation's fields, each as there (`null` is its default). */
export const WebhookUpdateBody = Type.Partial(WebhookCreateBody, { additionalProperties: true });
type WebhookUpdate = Static<typeof WebhookUpdateBody>;

/**
 * The creation body a change describes: the fields given over the subscription's own. A Misskey
 * subscription that stays one keeps its token and note options unless given others; one that leaves
 * Misskey drops them; a change of format drops the mention (each service writes its own). Request
 * headers not given are kept (sealed, never read back) if the resulting format may send them.
 */
function changedBody(s: Subscription, change: WebhookUpdate) {
  const format = change.format === undefined ? s.format : change.format;
  const staysMisskey = format === 'misskey' && s.format === 'misskey';
  const keepToken = keepsStoredToken(s.format, format ?? 'namazu', change.token !== undefined);
  const keepHeaders = change.headers === undefined;
  if (keepHeaders && !headerNamesAllowed(s.headerNames, format ?? 'namazu'))
    throw new HttpError('INVALID_FIELD', { detail: webhookMessages.headers });
  // The stored settings passed the creation's checks; what is checked again is this whole body.
  const body = {
    url: s.url,
    classifications: [...s.filter.classifications],
    types: s.filter.types === null ? null : [...s.filter.types],
    test: s.filter.test,
    formatMode: s.filter.formatMode,
    areas: s.filter.areas ? [...s.filter.areas] : null,
    minIntensity: s.filter.minIntensity ?? null,
    format: s.format,
    lang: s.lang,
    ...(staysMisskey ? { visibility: s.visibility, localOnly: s.localOnly } : {}),
    // A mention is written as its service writes it: another format drops it.
    ...(format === s.format ? { mention: s.mention, mentionOn: s.mentionOn } : {}),
    ...change,
    ...(keepToken ? { token: KEPT_TOKEN } : {}),
  } as Static<typeof WebhookCreateBody>;
  return { body, keepToken, keepHeaders };
}

/** Validates without coercion: a JSON body holds real strings and arrays (as POST /v2/socket). */
function strictValidator({ schema }: { schema: unknown }) {
  const check = Compile(schema as TSchema);
  return (data: unknown) => (check.Check(data) ? { value: data } : { error: check.Errors(data) });
}

/** The subscription a create request asks for, checked beyond the schema; throws a 400 naming the field. */
function subscriptionSpec(
  body: Static<typeof WebhookCreateBody>,
  allowPrivate: boolean,
): { spec: SubscriptionSpec; host: string } {
  const url = checkWebhookUrl(body.url, allowPrivate);
  if (!url.ok) throw new HttpError('INVALID_FIELD', { detail: urlRefusals[url.why] });
  const place = parsePlaceFilters(body, 'body');
  if (!place.ok) throw new HttpError('INVALID_FIELD', { detail: place.message });
  const format = (body.format ?? 'namazu') as WebhookFormat;
  const note = checkNoteOptions({
    token: body.token,
    visibility: body.visibility,
    localOnly: body.localOnly,
    format,
  });
  if (!note.ok) {
    const field = (['token', 'visibility', 'localOnly'] as const).find((f) => note.problems[f])!;
    throw new HttpError('INVALID_FIELD', { detail: webhookMessages[field] });
  }
  const mention = checkMention({ format, mention: body.mention, mentionOn: body.mentionOn });
  if (!mention.ok) throw new HttpError('INVALID_FIELD', { detail: webhookMessages[mention.field] });
  const headers = checkExtraHeaders(body.headers, format);
  if (!headers.ok) throw new HttpError('INVALID_FIELD', { detail: webhookMessages.headers });
  const spec: SubscriptionSpec = {
    ...place.value,
    url: url.url,
    classifications: [...new Set(body.classifications)],
    types: body.types?.length ? [...new Set(body.types)] : null,
    test: body.test ?? 'no',
    formatMode: body.formatMode ?? 'raw',
    format,
    lang: body.lang ?? 'ja',
    ...note.value,
    ...mention.value,
    headers: headers.value,
  };
  return { spec, host: url.host };
}

/** A subscription as the API shows it (`now`: whether a rotated-out secret still signs). */
function view(s: Subscription, now: number) {
  return {
    id: s.id,
    url: s.url,
    classifications: s.filter.classifications,
    types: s.filter.types,
    test: s.filter.test,
    formatMode: s.filter.formatMode,
    areas: s.filter.areas ?? null,
    minIntensity: s.filter.minIntensity ?? null,
    format: s.format,
    lang: s.lang,
    // Shown for the format that uses them only: the other formats' views stay as they were.
    ...(s.format === 'misskey' ? { visibility: s.visibility, localOnly: s.localOnly } : {}),
    ...(mentionsIn(s.format) ? { mention: s.mention, mentionOn: s.mentionOn } : {}),
    headerNames: s.headerNames,
    state: s.state,
    disabledReason: s.disabledReason,
    failingSince: s.failingSince?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    secretFrom: s.secretFrom.toISOString(),
    previousSecretUntil:
      s.previousSecretUntil && s.previousSecretUntil.getTime() > now
        ? s.previousSecretUntil.toISOString()
        : null,
  };
}

/** `/v2/webhook`: subscriptions, through the process's one webhook delivery. */
export const webhookApi = surfacePlugin('namazu-webhook-api', registerWebhookApi, [
  sharedPlugins.authentication,
  sharedPlugins.webhooks,
]);

async function registerWebhookApi(app: App, ctx: AppContext): Promise<void> {
  const service = app.webhooks;
  await registerCreate(app, ctx, service);
  registerReads(app, ctx);
  registerDeliveryList(app, ctx);
  await registerChanges(app, ctx, service);
}

/** `POST /v2/webhook` (its body is JSON whatever its type, as a socket start's). */
async function registerCreate(app: App, ctx: AppContext, service: WebhookService): Promise<void> {
  await app.register(async (scope: App) => {
    acceptJsonWhateverType(scope);
    scope.setValidatorCompiler(strictValidator);
    const options = {
      config: { scopes: ['webhook.manage'] },
      schema: {
        ...about(
          'Create a webhook',
          'webhook.manage',
          'Answers the subscription and its signing `secret` (`whsec_…`), shown only here.',
        ),
        body: WebhookCreateBody,
      },
      schemaErrorFormatter: documentedValidation(webhookMessages, NOT_JSON_MESSAGE),
    };
    scope.post('/v2/webhook', options, async (request) => {
      const { principal } = request;
      const { spec, host } = subscriptionSpec(request.body, ctx.config.webhookAllowPrivate);
      requireClassScopes(principal, spec.classifications);
      const created = await createSubscription(ctx.db, service.box, principal.accountId, spec, host);
      if (!created.ok)
        throw created.reason === 'full'
          ? new HttpError('WEBHOOKS_FULL', { message: `at most ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhooks` })
          : new HttpError('NO_CONTRACT');
      const now = ctx.clock.now();
      return okBody({ ...view(created.subscription, now), secret: created.secret }, now);
    });
    const changeOptions = {
      ...options,
      schema: {
        ...about(
          "Change a webhook's settings",
          'webhook.manage',
          'Any of the creation fields; `null` sets one to its default.',
        ),
        ...idParams,
        body: WebhookUpdateBody,
      },
    };
    scope.patch('/v2/webhook/:id', changeOptions, async (request) => {
      const { principal } = request;
      const s = await ownSubscription(ctx, principal.accountId, request.params.id);
      const { body, keepToken, keepHeaders } = changedBody(s, request.body);
      const { spec, host } = subscriptionSpec(body, ctx.config.webhookAllowPrivate);
      // All of them, given or kept: the URL it changes receives their telegrams.
      requireClassScopes(principal, spec.classifications);
      const newClassifications = request.body.classifications !== undefined;
      const change = { spec, host, newClassifications, keepToken, keepHeaders };
      const updated = await updateSubscription(ctx.db, service.box, principal.accountId, s.id, change);
      if (!updated.ok)
        throw new HttpError(updated.reason === 'no-contract' ? 'NO_CONTRACT' : 'WEBHOOK_NOT_FOUND');
      const now = ctx.clock.now();
      return okBody(view(updated.subscription, now), now);
    });
  });
}

/** Each delivered classification needs its class scope (as a socket start does). */
function requireClassScopes(principal: Principal, classifications: readonly string[]): void {
  for (const c of classifications) {
    if (planByClassification(c)?.delivers) requireScope(principal, classScope(c));
  }
}

/** `GET /v2/webhook` and `GET /v2/webhook/:id`. */
function registerReads(app: App, ctx: AppContext): void {
  const config = { scopes: ['webhook.list'] };
  app.get(
    '/v2/webhook',
    { config, schema: about("The account's webhooks", 'webhook.list') },
    async (request) => {
      const items = await listSubscriptions(ctx.db, request.principal.accountId);
      const now = ctx.clock.now();
      return okBody({ items: items.map((s) => view(s, now)) }, now);
    },
  );
  const one = { ...about('A webhook, with its 20 newest deliveries', 'webhook.list'), ...idParams };
  app.get('/v2/webhook/:id', { config, schema: one }, async (request) => {
    const s = await ownSubscription(ctx, request.principal.accountId, request.params.id);
    const deliveries = await recentDeliveries(ctx.db, s.id, { limit: RECENT_DELIVERIES });
    const now = ctx.clock.now();
    return okBody({ ...view(s, now), deliveries: deliveries.map(deliveryView) }, now);
  });
}

/**
 * The stored telegram a test carries (`telegramId`), checked: one of the webhook's classifications
 * that the account has a contract for, and that the key may read; undefined when none is asked.
 */
async function carriedTelegram(
  ctx: AppContext,
  principal: Principal,
  s: Subscription,
  raw: unknown,
): Promise<TelegramRecord | undefined> {
  if (raw === undefined) return undefined;
  const found = typeof raw === 'string' ? await telegramForTest(ctx.db, s, raw) : null;
  if (!found) throw new HttpError('INVALID_FIELD', { detail: webhookMessages.telegramId });
  requireClassScopes(principal, [found.classification]);
  return found;
}

/** Whether a test asks to carry the webhook's mention (`mention=true`), checked. */
function testMention(s: Subscription, raw: unknown): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true' && s.mention !== null) return true;
  throw new HttpError('INVALID_FIELD', { detail: webhookMessages.testMention });
}

/** `DELETE /v2/webhook/:id`, its test event, disabling and enabling it, its secret's rotation; redeliveries. */
async function registerChanges(parent: App, ctx: AppContext, service: WebhookService): Promise<void> {
  await parent.register(async (app: App) => {
    ignoreBodies(app);
    registerChangeRoutes(app, ctx, service);
    registerTest(app, ctx, service);
    registerRedeliveries(app, ctx, service);
  });
}

/** `POST /v2/webhook/:id/test`: a test event now, carrying a stored telegram's post when asked. */
function registerTest(app: App, ctx: AppContext, service: WebhookService): void {
  const config = { scopes: ['webhook.manage'] };
  app.post<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/v2/webhook/:id/test',
    {
      config,
      schema: {
        ...about(
          'Send a test event now',
          'webhook.manage',
          "Query `telegramId`: the event carries what that stored telegram's delivery posts, marked as a test; `mention=true`: with the webhook's mention, which then pings.",
        ),
        ...idParams,
      },
    },
    async (request) => {
      const s = await ownSubscription(ctx, request.principal.accountId, request.params.id);
      const telegram = await carriedTelegram(ctx, request.principal, s, request.query.telegramId);
      const tested = await service.sendTest(s, telegram, testMention(s, request.query.mention));
      if (!tested) throw new HttpError('WEBHOOK_NOT_FOUND');
      const { deliveryId, messageId, outcome } = tested;
      return okBody(
        {
          delivery: {
            id: deliveryId,
            webhookId: messageId,
            delivered: outcome.ok,
            status: outcome.status,
            error: outcome.error,
            response: outcome.response ?? null,
            durationMs: Math.round(outcome.durationMs),
          },
        },
        ctx.clock.now(),
      );
    },
  );
}

function registerChangeRoutes(app: App, ctx: AppContext, service: WebhookService): void {
  const config = { scopes: ['webhook.manage'] };
  const deletion = { ...about('Delete a webhook and its deliveries', 'webhook.manage'), ...idParams };
  app.delete('/v2/webhook/:id', { config, schema: deletion }, async (request, reply) => {
    const id = positiveInt(request.params.id);
    if (id === null || !(await deleteSubscription(ctx.db, request.principal.accountId, id)))
      throw new HttpError('WEBHOOK_NOT_FOUND');
    return reply.code(204).send();
  });
  for (const [path, change, summary] of [
    ['/v2/webhook/:id/enable', enableSubscription, 'Enable a disabled webhook again'],
    ['/v2/webhook/:id/disable', disableSubscription, 'Disable a webhook'],
  ] as const) {
    app.post(
      path,
      { config, schema: { ...about(summary, 'webhook.manage'), ...idParams } },
      async (request) => {
        const id = positiveInt(request.params.id);
        const changed = id === null ? null : await change(ctx.db, request.principal.accountId, id);
        if (!changed) throw new HttpError('WEBHOOK_NOT_FOUND');
        const now = ctx.clock.now();
        return okBody(view(changed, now), now);
      },
    );
  }
  app.post<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/v2/webhook/:id/secret',
    {
      config,
      schema: {
        ...about(
          'Rotate the signing secret',
          'webhook.manage',
          'Query `previousValidSeconds` (0–604800, default 86400): how long the replaced secret signs beside the new one.',
        ),
        ...idParams,
      },
    },
    async (request) => {
      const previousMs = previousValidMs(request.query.previousValidSeconds);
      const id = positiveInt(request.params.id);
      const rotated =
        id === null
          ? null
          : await rotateSecret(ctx.db, service.box, request.principal.accountId, id, previousMs);
      if (!rotated?.ok) throw new HttpError('WEBHOOK_NOT_FOUND');
      const now = ctx.clock.now();
      return okBody({ ...view(rotated.subscription, now), secret: rotated.secret }, now);
    },
  );
}
