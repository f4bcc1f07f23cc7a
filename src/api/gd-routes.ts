import type { AppContext } from '../context.ts';
import {
  earthquakeEvent,
  listEarthquakeEvents,
  type EarthquakeListPage,
  type EarthquakeListQuery,
} from '../gd/earthquake-store.ts';
import { eewEvent, listEewRecords, type EewListQuery } from '../gd/eew.ts';
import type { EewRecord, ListPage } from '../gd/types.ts';
import { parseDateFilter, parseMaxIntFilter } from '../gd/filters.ts';
import { ItemsAnswer, okBody } from '../http/envelope.ts';
import { HttpError } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { App } from '../http/surface.ts';
import { loadSummaries } from '../telegrams/store.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { parseDatetimeRange } from './datetime-range.ts';
import { SerialTaggedCache, type SerialSource } from './serial-cache.ts';
import type { Static } from 'typebox';
import {
  errorResponses,
  GdEarthquakeEvent,
  GdEarthquakeList,
  GdEarthquakeListQuery,
  GdEewEvent,
  GdEewList,
  GdEewListQuery,
  GdEventParams,
} from './schemas.ts';
import { conversionItem, isConversion } from './telegram-items.ts';

const EARTHQUAKE_LIST = 'gdeq';
const EEW_LIST = 'gdeew';
/** Event ids are JMA EventIDs (14 digits for earthquakes); anything else is simply not found. */
const EVENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

export interface GdDeps {
  contracted: (accountId: number) => Promise<Set<string>>;
  /** The process's telegram cache: list pages are kept until it sees a new serial (serial-cache.ts). */
  telegrams: SerialSource;
}

/** How soon a projection rebuilt without a new telegram shows in the lists. */
const MAX_PAGE_AGE_MS = 1000;

const notFound = () => new HttpError('NOT_FOUND');

/**
 * An event answer as JSON text in its members' own order. The response serialiser writes required
 * members before optional ones, which would put `telegrams` between `maxInt` and `originTime`; the
 * production reference, like the list, writes the summary in its order and `telegrams` last.
 */
const inOrder = <T>(body: object): T => JSON.stringify(body) as unknown as T;

/** An earthquake list page as its answer: the items serialised once, with the page's cursors. */
function earthquakeListAnswer(page: EarthquakeListPage, pollingIntervalMs: number): ItemsAnswer {
  return new ItemsAnswer(Buffer.from(JSON.stringify(page.items), 'utf8'), {
    ...(page.nextToken !== undefined
      ? { nextToken: encodeCursor(EARTHQUAKE_LIST, 'older', page.nextToken) }
      : {}),
    nextPooling: encodeCursor(EARTHQUAKE_LIST, 'newer', page.nextPooling),
    nextPoolingInterval: pollingIntervalMs,
  });
}

/**
 * The merged earthquake and early-warning APIs (docs/gd.md). Contracts gate them like the lists:
 * without a `telegram.earthquake` contract the earthquake list is empty, without an early-warning
 * contract the early-warning list is, and their events are not found.
 */
export function registerGdRoutes(app: App, ctx: AppContext, deps: GdDeps): void {
  registerEarthquakeRoutes(app, ctx, deps);
  registerEewRoutes(app, ctx, deps);
}

/**
 * Each list keeps its pages, per parsed query, within a quarter of NAMAZU_ANSWER_CACHE_BYTES
 * (docs/operations.md "Memory"; the telegram list has the other half).
 */
const keptPageBytes = (ctx: AppContext) => Math.floor(ctx.config.answerCacheBytes / 4);

/** An early-warning page's memory, over-estimated: its text at 2 bytes a character, twice for the objects. */
const eewPageBytes = (page: ListPage<EewRecord>) => JSON.stringify(page.items).length * 4;

/** `GET /v2/gd/earthquake` and `/v2/gd/earthquake/:eventId`. */
function registerEarthquakeRoutes(app: App, ctx: AppContext, deps: GdDeps): void {
  const hasEarthquakes = async (accountId: number) =>
    (await deps.contracted(accountId)).has('telegram.earthquake');
  const earthquakePages = new SerialTaggedCache<ItemsAnswer>(deps.telegrams, {
    maxBytes: keptPageBytes(ctx),
    maxAgeMs: MAX_PAGE_AGE_MS,
    bytesOf: (answer) => answer.byteLength,
  });
  registerEarthquakeList(app, ctx, hasEarthquakes, earthquakePages);
  app.get(
    '/v2/gd/earthquake/:eventId',
    {
      config: { scopes: ['gd.earthquake'] },
      schema: {
        summary: 'Earthquake event',
        description:
          'One merged earthquake event with its telegrams as JSON conversions. Scope `gd.earthquake`.',
        tags: ['earthquakes'],
        params: GdEventParams,
        response: { 200: GdEarthquakeEvent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { eventId } = request.params;
      if (!EVENT_ID.test(eventId) || !(await hasEarthquakes(request.principal.accountId))) throw notFound();
      const detail = await earthquakeEvent(ctx.db, eventId);
      if (!detail) throw notFound();
      const dataUrl = publicUrls(ctx.config, request).data;
      const telegrams = (await loadSummaries(ctx.db, detail.telegramSerials))
        .filter(isConversion)
        .map((t) => conversionItem(t, dataUrl));
      return reply
        .type('application/json; charset=utf-8')
        .send(
          inOrder<Static<typeof GdEarthquakeEvent>>(
            okBody({ event: { ...detail.event, telegrams } }, ctx.clock.now()),
          ),
        );
    },
  );
}

/** `GET /v2/gd/eew` and `/v2/gd/eew/:eventId`. */
function registerEewRoutes(app: App, ctx: AppContext, deps: GdDeps): void {
  const hasEew = async (accountId: number) => {
    const contracted = await deps.contracted(accountId);
    return contracted.has('eew.forecast') || contracted.has('eew.warning');
  };
  const eewPages = new SerialTaggedCache<ListPage<EewRecord>>(deps.telegrams, {
    maxBytes: keptPageBytes(ctx),
    maxAgeMs: MAX_PAGE_AGE_MS,
    bytesOf: eewPageBytes,
  });

  app.get(
    '/v2/gd/eew',
    {
      config: { scopes: ['gd.eew'] },
      schema: {
        summary: 'Early-warning list',
        description:
          'The final report (or cancellation) of each early-warning event, newest first. For reference after the fact. Scope `gd.eew`.',
        tags: ['earthquakes'],
        querystring: GdEewListQuery,
        response: { 200: GdEewList, ...errorResponses },
      },
    },
    async (request) => {
      const { query } = request;
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      const range = parseDatetimeRange(query.datetime);
      const cursor =
        query.cursorToken === undefined
          ? undefined
          : decodeCursor(EEW_LIST, query.cursorToken, 'cursorToken', ['older']);
      const f: EewListQuery = {
        limit,
        ...(range.from ? { datetimeFrom: range.from } : {}),
        ...(range.before ? { datetimeTo: range.before } : {}),
        ...(cursor ? { cursor: { position: cursor.serial } } : {}),
      };
      const page = (await hasEew(request.principal.accountId))
        ? await eewPages.get(JSON.stringify(f), () => listEewRecords(ctx.db, f))
        : { items: [] };
      return okBody(
        {
          items: page.items,
          ...(page.nextToken !== undefined
            ? { nextToken: encodeCursor(EEW_LIST, 'older', page.nextToken) }
            : {}),
        },
        ctx.clock.now(),
      );
    },
  );
  registerEewEvent(app, ctx, hasEew);
}

/** `GET /v2/gd/earthquake`: pages kept while no telegram is committed, their items serialised once. */
function registerEarthquakeList(
  app: App,
  ctx: AppContext,
  hasEarthquakes: (accountId: number) => Promise<boolean>,
  earthquakePages: SerialTaggedCache<ItemsAnswer>,
): void {
  app.get(
    '/v2/gd/earthquake',
    {
      config: { scopes: ['gd.earthquake'] },
      schema: {
        summary: 'Earthquake list',
        description:
          'Earthquake events merged from VXSE51, VXSE52, VXSE53, VXSE61 and VXSE62, newest first. Scope `gd.earthquake`.',
        tags: ['earthquakes'],
        querystring: GdEarthquakeListQuery,
        response: { 200: GdEarthquakeList, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const f: EarthquakeListQuery = { limit: query.limit === undefined ? 20 : Number(query.limit) };
      if (query.hypocenter !== undefined) f.hypocenter = query.hypocenter;
      const { maxInt, date } = query;
      if (maxInt !== undefined) f.maxInt = parseMaxIntFilter(maxInt);
      if (date !== undefined) f.date = parseDateFilter(date);
      if (query.cursorToken !== undefined) {
        const cursor = decodeCursor(EARTHQUAKE_LIST, query.cursorToken, 'cursorToken');
        f.cursor = { direction: cursor.direction, position: cursor.serial };
      }
      const { pollingIntervalMs } = ctx.config;
      const answer = (await hasEarthquakes(request.principal.accountId))
        ? await earthquakePages.get(JSON.stringify(f), async () =>
            earthquakeListAnswer(await listEarthquakeEvents(ctx.db, f), pollingIntervalMs),
          )
        : earthquakeListAnswer(
            { items: [], nextPooling: f.cursor?.direction === 'newer' ? f.cursor.position : 0 },
            pollingIntervalMs,
          );
      // The items are serialised once per kept page and go out as they are; the response schema
      // documents their shape.
      return reply
        .type('application/json; charset=utf-8')
        .send(answer.stamp(ctx.clock.now()) as unknown as Static<typeof GdEarthquakeList>);
    },
  );
}

/** `GET /v2/gd/eew/:eventId`: every report of one early-warning event with its JSON telegram. */
function registerEewEvent(app: App, ctx: AppContext, hasEew: (accountId: number) => Promise<boolean>): void {
  app.get(
    '/v2/gd/eew/:eventId',
    {
      config: { scopes: ['gd.eew'] },
      schema: {
        summary: 'Early-warning event',
        description:
          'Every report of one early-warning event, newest first, each with its JSON telegram. Scope `gd.eew`.',
        tags: ['earthquakes'],
        params: GdEventParams,
        response: { 200: GdEewEvent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { eventId } = request.params;
      if (!EVENT_ID.test(eventId) || !(await hasEew(request.principal.accountId))) throw notFound();
      const records = await eewEvent(ctx.db, eventId);
      if (!records) throw notFound();
      const dataUrl = publicUrls(ctx.config, request).data;
      const telegrams = new Map(
        (
          await loadSummaries(
            ctx.db,
            records.map((r) => r.id),
          )
        )
          .filter(isConversion)
          .map((t) => [t.serial, conversionItem(t, dataUrl)] as const),
      );
      const items = records.map((r) => {
        const telegram = telegrams.get(r.id);
        return { ...r, telegrams: telegram ? [telegram] : [] };
      });
      return reply
        .type('application/json; charset=utf-8')
        .send(inOrder<Static<typeof GdEewEvent>>(okBody({ items }, ctx.clock.now())));
    },
  );
}
