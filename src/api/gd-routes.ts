import { Type } from 'typebox';
import { requireScope, type Authenticator } from '../auth/authenticate.ts';
import type { AppContext } from '../context.ts';
import { earthquakeEvent, listEarthquakeEvents, type EarthquakeListQuery } from '../gd/earthquake-store.ts';
import { eewEvent, listEewRecords } from '../gd/eew.ts';
import { GdFilterError, parseDateFilter, parseHypocenterFilter, parseMaxIntFilter } from '../gd/filters.ts';
import type { App } from '../http/app.ts';
import { okBody } from '../http/envelope.ts';
import { badQuery, notFound } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import { loadSummaries } from '../telegrams/store.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { parseDatetimeRange, parseLimit, single, type RawQuery } from './list-params.ts';
import { errorResponses } from './schemas.ts';
import { conversionItem } from './telegram-items.ts';

const EARTHQUAKE_LIST = 'gdeq';
const EEW_LIST = 'gdeew';
/** Event ids are JMA EventIDs (14 digits for earthquakes); anything else is simply not found. */
const EVENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

export interface GdDeps {
  auth: Authenticator;
  contracted: (accountId: number) => Promise<Set<string>>;
}

const earthquakeQuery = Type.Object(
  {
    hypocenter: Type.Optional(Type.String({ description: '3-digit epicentre area code' })),
    maxInt: Type.Optional(
      Type.String({ description: 'Lower bound of the maximum intensity: 1 2 3 4 5- 5+ 6- 6+ 7' }),
    ),
    date: Type.Optional(Type.String({ description: 'yyyy-MM-dd, Japan date of the detection time' })),
    limit: Type.Optional(Type.String({ description: 'Items per page, 1–100 (default 20)' })),
    cursorToken: Type.Optional(
      Type.String({ description: 'A nextToken (older) or nextPooling (changed) value' }),
    ),
    key: Type.Optional(Type.String({ description: 'API key (alternative to the Authorization header)' })),
  },
  { additionalProperties: true },
);

const eewQuery = Type.Object(
  {
    datetime: Type.Optional(
      Type.String({ description: 'Reception time range of the final report `start~end`, end exclusive' }),
    ),
    limit: Type.Optional(Type.String({ description: 'Items per page, 1–100 (default 20)' })),
    cursorToken: Type.Optional(Type.String({ description: 'A nextToken value' })),
    key: Type.Optional(Type.String({ description: 'API key (alternative to the Authorization header)' })),
  },
  { additionalProperties: true },
);

const eventParams = Type.Object({ eventId: Type.String() });

/** A gd filter's own parse error as the documented 400 naming the parameter. */
function filter<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof GdFilterError) throw badQuery(err.parameter);
    throw err;
  }
}

/**
 * The merged earthquake and early-warning APIs (docs/gd.md). Contracts gate them like the lists:
 * without a `telegram.earthquake` contract the earthquake list is empty, without an early-warning
 * contract the early-warning list is.
 */
export function registerGdRoutes(app: App, ctx: AppContext, deps: GdDeps): void {
  const hasEarthquakes = async (accountId: number) =>
    (await deps.contracted(accountId)).has('telegram.earthquake');
  const hasEew = async (accountId: number) => {
    const contracted = await deps.contracted(accountId);
    return contracted.has('eew.forecast') || contracted.has('eew.warning');
  };

  app.get(
    '/v2/gd/earthquake',
    {
      schema: {
        summary: 'Earthquake list',
        description:
          'Earthquake events merged from VXSE51, VXSE52, VXSE53, VXSE61 and VXSE62, newest first. Scope `gd.earthquake`.',
        tags: ['earthquakes'],
        querystring: earthquakeQuery,
        response: errorResponses,
      },
    },
    async (request) => {
      const principal = await deps.auth.authenticate(request);
      requireScope(principal, 'gd.earthquake');
      const query = request.query as RawQuery;
      const f: EarthquakeListQuery = { limit: parseLimit(single(query, 'limit'), 'limit', 20, 100) };
      const hypocenter = single(query, 'hypocenter');
      if (hypocenter !== undefined) f.hypocenter = filter(() => parseHypocenterFilter(hypocenter));
      const maxInt = single(query, 'maxInt');
      if (maxInt !== undefined) f.maxInt = filter(() => parseMaxIntFilter(maxInt));
      const date = single(query, 'date');
      if (date !== undefined) f.date = filter(() => parseDateFilter(date));
      const token = single(query, 'cursorToken');
      if (token !== undefined) {
        const cursor = decodeCursor(EARTHQUAKE_LIST, token, 'cursorToken');
        f.cursor = { direction: cursor.direction, position: cursor.serial };
      }
      const page = (await hasEarthquakes(principal.accountId))
        ? await listEarthquakeEvents(ctx.db, f)
        : { items: [], nextPooling: f.cursor?.direction === 'newer' ? f.cursor.position : 0 };
      return okBody(
        {
          items: page.items,
          ...('nextToken' in page && page.nextToken !== undefined
            ? { nextToken: encodeCursor(EARTHQUAKE_LIST, 'older', page.nextToken) }
            : {}),
          nextPooling: encodeCursor(EARTHQUAKE_LIST, 'newer', page.nextPooling),
          nextPoolingInterval: ctx.config.pollingIntervalMs,
        },
        ctx.clock.now(),
      );
    },
  );

  app.get(
    '/v2/gd/earthquake/:eventId',
    {
      schema: {
        summary: 'Earthquake event',
        description:
          'One merged earthquake event with its telegrams as JSON conversions. Scope `gd.earthquake`.',
        tags: ['earthquakes'],
        params: eventParams,
        response: errorResponses,
      },
    },
    async (request) => {
      const principal = await deps.auth.authenticate(request);
      requireScope(principal, 'gd.earthquake');
      const { eventId } = request.params as { eventId: string };
      if (!EVENT_ID.test(eventId) || !(await hasEarthquakes(principal.accountId))) throw notFound();
      const detail = await earthquakeEvent(ctx.db, eventId);
      if (!detail) throw notFound();
      const dataUrl = publicUrls(ctx.config, request).data;
      const telegrams = (await loadSummaries(ctx.db, detail.telegramSerials)).map((t) =>
        conversionItem(t, dataUrl),
      );
      return okBody({ event: { ...detail.event, telegrams } }, ctx.clock.now());
    },
  );

  app.get(
    '/v2/gd/eew',
    {
      schema: {
        summary: 'Early-warning list',
        description:
          'The final report (or cancellation) of each early-warning event, newest first. For reference after the fact. Scope `gd.eew`.',
        tags: ['earthquakes'],
        querystring: eewQuery,
        response: errorResponses,
      },
    },
    async (request) => {
      const principal = await deps.auth.authenticate(request);
      requireScope(principal, 'gd.eew');
      const query = request.query as RawQuery;
      const limit = parseLimit(single(query, 'limit'), 'limit', 20, 100);
      const range = parseDatetimeRange(single(query, 'datetime'));
      const token = single(query, 'cursorToken');
      const cursor =
        token === undefined ? undefined : decodeCursor(EEW_LIST, token, 'cursorToken', ['older']);
      const page = (await hasEew(principal.accountId))
        ? await listEewRecords(ctx.db, {
            limit,
            ...(range.from ? { datetimeFrom: range.from } : {}),
            ...(range.before ? { datetimeTo: range.before } : {}),
            ...(cursor ? { cursor: { position: cursor.serial } } : {}),
          })
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

  app.get(
    '/v2/gd/eew/:eventId',
    {
      schema: {
        summary: 'Early-warning event',
        description:
          'Every report of one early-warning event, newest first, each with its JSON telegram. Scope `gd.eew`.',
        tags: ['earthquakes'],
        params: eventParams,
        response: errorResponses,
      },
    },
    async (request) => {
      const principal = await deps.auth.authenticate(request);
      requireScope(principal, 'gd.eew');
      const { eventId } = request.params as { eventId: string };
      if (!EVENT_ID.test(eventId) || !(await hasEew(principal.accountId))) throw notFound();
      const records = await eewEvent(ctx.db, eventId);
      if (!records) throw notFound();
      const dataUrl = publicUrls(ctx.config, request).data;
      const telegrams = new Map(
        (
          await loadSummaries(
            ctx.db,
            records.map((r) => r.id),
          )
        ).map((t) => [t.serial, conversionItem(t, dataUrl)]),
      );
      const items = records.map((r) => ({
        ...r,
        telegrams: telegrams.has(r.id) ? [telegrams.get(r.id)] : [],
      }));
      return okBody({ items }, ctx.clock.now());
    },
  );
}
