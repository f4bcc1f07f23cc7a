import { Type, type Static } from 'typebox';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { okBody } from '../http/envelope.ts';
import { badQuery } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { TelegramCache } from '../telegrams/cache.ts';
import { isEew } from '../telegrams/classify.ts';
import { pollingPosition, readTelegramPage } from '../telegrams/list.ts';
import type { TelegramQuery } from '../telegrams/store.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import {
  formatModeError,
  parseBoolean,
  parseDatetimeRange,
  parseLimit,
  parseTypes,
  single,
  type RawQuery,
} from './list-params.ts';
import { errorResponses, TelegramListV1, TelegramListV2 } from './schemas.ts';
import { itemV1, v2ListJson } from './telegram-items.ts';

const V2 = 'v2t';
const V1 = 'v1t';

export interface ListDeps {
  cache: TelegramCache;
  contracted: (accountId: number) => Promise<Set<string>>;
}

const v2Query = Type.Object(
  {
    type: Type.Optional(
      Type.String({ description: 'One code: prefix match; several, comma-separated: exact (≤ 5)' }),
    ),
    xmlReport: Type.Optional(
      Type.String({ description: '`true` adds Control/Head of XML telegrams (default false)' }),
    ),
    test: Type.Optional(Type.String({ description: '`no` (default), `including` or `only`' })),
    formatMode: Type.Optional(Type.String({ description: '`raw` (default) or `json`' })),
    datetime: Type.Optional(
      Type.String({
        description: 'Reception time range `start~end` (YYYY-MM-DDThh:mm:ss, Japan time), end exclusive',
      }),
    ),
    cursorToken: Type.Optional(
      Type.String({ description: 'A nextToken (older page) or nextPooling (newer) value' }),
    ),
    limit: Type.Optional(Type.String({ description: 'Items per page, 1–100 (default 20)' })),
    key: Type.Optional(Type.String({ description: 'API key (alternative to the Authorization header)' })),
  },
  { additionalProperties: true },
);

const v1Query = Type.Object(
  {
    key: Type.Optional(Type.String({ description: 'API key' })),
    type: Type.Optional(Type.String({ description: 'Prefix of the data type code' })),
    xml: Type.Optional(Type.String({ description: '`true` adds xmlData to XML telegrams' })),
    test: Type.Optional(Type.String({ description: '`false` (default), `true` (include) or `only`' })),
    newCatch: Type.Optional(Type.String({ description: 'A newCatch value: only newer telegrams' })),
    nextToken: Type.Optional(Type.String({ description: 'A nextToken value: older telegrams' })),
    limit: Type.Optional(Type.String({ description: '1–100 (default 100)' })),
  },
  { additionalProperties: true },
);

/** Classifications a principal's list shows: every contracted one, early warnings excepted. */
async function listedClassifications(deps: ListDeps, accountId: number): Promise<string[]> {
  return [...(await deps.contracted(accountId))].filter((c) => !isEew(c)).sort();
}

export function registerTelegramLists(app: App, ctx: AppContext, deps: ListDeps): void {
  app.get(
    '/v2/telegram',
    {
      config: { scopes: ['telegram.list'] },
      schema: {
        summary: 'Telegram list (v2)',
        description:
          'Telegrams of the contracted classifications, newest first; early warnings excluded. Scope `telegram.list`.',
        tags: ['telegrams'],
        querystring: v2Query,
        response: { 200: TelegramListV2, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = request.query as RawQuery;
      const formatMode = single(query, 'formatMode') ?? 'raw';
      if (formatMode !== 'raw' && formatMode !== 'json') throw formatModeError();
      const types = parseTypes(query);
      const withXmlReport = parseBoolean(single(query, 'xmlReport'), 'xmlReport');
      const test = single(query, 'test') ?? 'no';
      if (test !== 'no' && test !== 'including' && test !== 'only') throw badQuery('test');
      const range = parseDatetimeRange(single(query, 'datetime'));
      const limit = parseLimit(single(query, 'limit'), 'limit', 20, 100);
      const token = single(query, 'cursorToken');
      const cursor = token === undefined ? undefined : decodeCursor(V2, token, 'cursorToken');

      const q: TelegramQuery = {
        classifications: await listedClassifications(deps, request.principal.accountId),
        types,
        test,
        // JSON conversions do not exist yet: json mode lists the telegrams that have no XML body.
        formats: formatMode === 'json' ? ['a/n', 'binary'] : undefined,
        receivedFrom: range.from,
        receivedBefore: range.before,
        before: cursor?.direction === 'older' ? cursor.serial : undefined,
        after: cursor?.direction === 'newer' ? cursor.serial : undefined,
        limit,
        withXmlReport,
      };
      const page = await readTelegramPage(ctx.db, deps.cache, q);
      const last = page.items.at(-1);
      const json = v2ListJson(
        page.items,
        publicUrls(ctx.config, request).data,
        withXmlReport,
        {
          ...(q.after === undefined && page.truncated && last
            ? { nextToken: encodeCursor(V2, 'older', last.serial) }
            : {}),
          nextPooling: encodeCursor(V2, 'newer', pollingPosition(page, q.after)),
          nextPoolingInterval: ctx.config.pollingIntervalMs,
        },
        ctx.clock.now(),
      );
      // Items are pre-serialised per telegram (telegram-items.ts): the text goes out as it is, and
      // the response schema documents its shape.
      return reply
        .type('application/json; charset=utf-8')
        .send(json as unknown as Static<typeof TelegramListV2>);
    },
  );

  app.get(
    '/telegram/v1/list',
    {
      config: { scopes: ['telegram.list'] },
      schema: {
        summary: 'Telegram list (v1, deprecated)',
        description: 'The former list shape. Scope `telegram.list`.',
        tags: ['telegrams'],
        deprecated: true,
        querystring: v1Query,
        response: { 200: TelegramListV1, ...errorResponses },
      },
    },
    async (request) => {
      const query = request.query as RawQuery;
      const types = parseTypes(query);
      const withXml = parseBoolean(single(query, 'xml'), 'xml');
      const testRaw = single(query, 'test') ?? 'false';
      const test = ({ false: 'no', true: 'including', only: 'only' } as const)[testRaw as 'false'];
      if (test === undefined) throw badQuery('test');
      const limit = parseLimit(single(query, 'limit'), 'limit', 100, 100);
      const newCatchRaw = single(query, 'newCatch') ?? '0';
      if (!/^\d{1,15}$/.test(newCatchRaw)) throw badQuery('newCatch');
      const newCatch = Number(newCatchRaw);
      const token = single(query, 'nextToken');
      const older = token === undefined ? undefined : decodeCursor(V1, token, 'nextToken', ['older']).serial;

      const q: TelegramQuery = {
        classifications: await listedClassifications(deps, request.principal.accountId),
        types,
        test,
        before: older,
        after: older === undefined && newCatch > 0 ? newCatch : undefined,
        limit,
        withXmlReport: withXml,
      };
      const page = await readTelegramPage(ctx.db, deps.cache, q);
      const dataUrl = publicUrls(ctx.config, request).data;
      const last = page.items.at(-1);
      return okBody(
        {
          items: page.items.map((t) => itemV1(t, dataUrl, withXml)),
          newCatch: Math.max(page.items[0]?.serial ?? 0, newCatch),
          ...(q.after === undefined && page.truncated && last
            ? { nextToken: encodeCursor(V1, 'older', last.serial) }
            : {}),
        },
        ctx.clock.now(),
      );
    },
  );
}
