/**
 * A webhook's deliveries on the data API (docs/webhooks.md "Deliveries"): GET
 * /v2/webhook/:id/deliveries (every kept delivery, newest first, by state, in pages), POST
 * /v2/webhook/:id/deliveries/:deliveryId/redeliver (one again) and POST /v2/webhook/:id/recover (the
 * failed ones of a time range again: a receiver down longer than the retries).
 */
import { Type, type Static } from 'typebox';
import type { AppContext } from '../context.ts';
import { okBody } from '../http/envelope.ts';
import { HttpError, badQuery } from '../http/errors.ts';
import type { App } from '../http/surface.ts';
import { recentDeliveries, recoverFailed, redeliver, type DeliveryView } from '../webhooks/deliveries.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { parseDatetimeRange } from './datetime-range.ts';
import { pageLimit } from './schemas.ts';
import { about, idParams, ownSubscription, positiveInt } from './webhook-params.ts';

/** Deliveries of a page when the client names no `limit`. */
const DEFAULT_PAGE = 20;
/** The cursor's list name (src/api/cursor.ts). */
const DELIVERY_LIST = 'deliveries';

export const recoverMessages = {
  datetime:
    'The `datetime` query parameter is required: the range of the failed deliveries to redeliver, `<start>~<end>` (either side may be left out; a time without an offset is Japan time).',
} as const;

export function deliveryView(d: DeliveryView) {
  return {
    id: d.id,
    webhookId: d.messageId,
    telegramId: d.telegramId,
    kind: d.serial === null ? 'test' : 'telegram',
    state: d.state,
    attempts: d.attempts,
    status: d.lastStatus,
    error: d.lastError,
    response: d.lastResponse,
    durationMs: d.lastDurationMs,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.nextAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
  };
}

const DeliveriesQuery = Type.Object(
  {
    state: Type.Optional(
      Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
        description: 'Only the deliveries in this state',
      }),
    ),
    limit: Type.Optional(pageLimit),
    cursorToken: Type.Optional(Type.String({ description: 'A nextToken value' })),
  },
  { additionalProperties: true },
);

/** `GET /v2/webhook/:id/deliveries`: a page of the subscription's kept deliveries, newest first. */
export function registerDeliveryList(app: App, ctx: AppContext): void {
  const schema = {
    ...about("A webhook's deliveries kept, newest first, in pages", 'webhook.list'),
    ...idParams,
    querystring: DeliveriesQuery,
  };
  app.get<{ Params: { id: string }; Querystring: Static<typeof DeliveriesQuery> }>(
    '/v2/webhook/:id/deliveries',
    { config: { scopes: ['webhook.list'] }, schema },
    async (request) => {
      const { query } = request;
      const s = await ownSubscription(ctx, request.principal.accountId, request.params.id);
      const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
      const cursor =
        query.cursorToken === undefined
          ? undefined
          : decodeCursor(DELIVERY_LIST, query.cursorToken, 'cursorToken', ['older']);
      // One more than the page: whether an older page follows.
      const found = await recentDeliveries(ctx.db, s.id, {
        limit: limit + 1,
        ...(query.state ? { state: query.state } : {}),
        ...(cursor ? { beforeId: cursor.serial } : {}),
      });
      const items = found.slice(0, limit);
      const next = found.length > limit ? items[items.length - 1]!.id : undefined;
      return okBody(
        {
          items: items.map(deliveryView),
          ...(next !== undefined ? { nextToken: encodeCursor(DELIVERY_LIST, 'older', next) } : {}),
        },
        ctx.clock.now(),
      );
    },
  );
}

/** The redelivery of one delivery and the recovery of a time range's failed ones (`webhook.manage`). */
export function registerRedeliveries(app: App, ctx: AppContext, service: WebhookService): void {
  const config = { scopes: ['webhook.manage'] };
  const redeliverParams = {
    ...about('Redeliver one delivery now, under its webhook-id', 'webhook.manage'),
    params: Type.Object({ id: Type.String(), deliveryId: Type.String() }),
  };
  app.post(
    '/v2/webhook/:id/deliveries/:deliveryId/redeliver',
    { config, schema: redeliverParams },
    async (request) => {
      const s = await ownSubscription(ctx, request.principal.accountId, request.params.id);
      if (s.state === 'disabled') throw new HttpError('WEBHOOK_DISABLED');
      const deliveryId = positiveInt(request.params.deliveryId);
      if (deliveryId !== null && (await redeliver(ctx.db, s.id, deliveryId))) service.wake();
      const [found] =
        deliveryId === null ? [] : await recentDeliveries(ctx.db, s.id, { limit: 1, id: deliveryId });
      // A test event is not redelivered: it is sent again by another test.
      if (!found || found.serial === null) throw new HttpError('WEBHOOK_DELIVERY_NOT_FOUND');
      return okBody({ delivery: deliveryView(found) }, ctx.clock.now());
    },
  );
  app.post<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/v2/webhook/:id/recover',
    {
      config,
      schema: {
        ...about(
          'Redeliver the failed deliveries of a time range',
          'webhook.manage',
          'Query `datetime` (required): `<start>~<end>` of the reception times, either side optional, Japan time without an offset.',
        ),
        ...idParams,
      },
    },
    async (request) => {
      const raw = request.query.datetime;
      if (raw === undefined || raw === '')
        throw new HttpError('INVALID_FIELD', { detail: recoverMessages.datetime });
      // Repeated, it is no range.
      if (typeof raw !== 'string') throw badQuery('datetime');
      const range = parseDatetimeRange(raw);
      const s = await ownSubscription(ctx, request.principal.accountId, request.params.id);
      if (s.state === 'disabled') throw new HttpError('WEBHOOK_DISABLED');
      const recovered = await recoverFailed(ctx.db, s.id, range);
      if (recovered > 0) service.wake();
      return okBody(
        {
          recovered,
          from: range.from?.toISOString() ?? null,
          before: range.before?.toISOString() ?? null,
        },
        ctx.clock.now(),
      );
    },
  );
}
