import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { ItemsAnswer, okBody } from '../http/envelope.ts';
import { documentedValidation } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { TelegramCache } from '../telegrams/cache.ts';
import { isEew } from '../telegrams/classify.ts';
import { pollingPosition, readTelegramPage } from '../telegrams/list.ts';
import type { TelegramQuery } from '../telegrams/store.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { SerialTaggedCache } from './serial-cache.ts';
import { parseDatetimeRange } from './datetime-range.ts';
import {
  errorResponses,
  TelegramListV1,
  TelegramListV1Query,
  TelegramListV2,
  TelegramListV2Query,
  telegramListV2Messages,
} from './schemas.ts';
import { typeFilter } from './type-filter.ts';
import { itemV1, v2ItemsJson } from './telegram-items.ts';

const V2 = 'v2t';
const V1 = 'v1t';

export interface ListDeps {
  cache: TelegramCache;
  contracted: (accountId: number) => Promise<Set<string>>;
}

/** The classifications a principal's list shows: every contracted one, early warnings excepted. */
interface Listed {
  classifications: string[];
  /** The same, as one string: part of the key of a kept answer. */
  key: string;
}

const listed = new WeakMap<Set<string>, Listed>();

async function listedClassifications(deps: ListDeps, accountId: number): Promise<Listed> {
  const contracted = await deps.contracted(accountId);
  let found = listed.get(contracted);
  if (!found) {
    const classifications = [...contracted].filter((c) => !isEew(c)).sort();
    found = { classifications, key: classifications.join(',') };
    listed.set(contracted, found);
  }
  return found;
}

/**
 * The listed classifications that the `classification` parameter names (comma-separated names the
 * schema has checked; empty or absent: all of them). A name not contracted, or of early warnings,
 * lists nothing.
 */
function narrowed(all: Listed, param: string | undefined): Listed {
  if (param === undefined || param === '') return all;
  const named = new Set(param.split(','));
  const classifications = all.classifications.filter((c) => named.has(c));
  return { classifications, key: classifications.join(',') };
}

/**
 * Answers of `/v2/telegram` kept, per query (answerKey), classifications and data URL, while no
 * telegram is committed or pruned: an answer depends on nothing else (its `nextPooling` names the
 * newest serial known). Bounded by bytes: half of NAMAZU_ANSWER_CACHE_BYTES (docs/operations.md
 * "Memory"), the earthquake and early-warning lists sharing the other half.
 */
export const keptTelegramAnswerBytes = (answerCacheBytes: number) => Math.floor(answerCacheBytes / 2);

/**
 * What of a `/v2/telegram` query decides its answer, as a key: the parsed parameters, not the URL,
 * so that parameters the list does not know (which clients may send) make no entry of their own.
 * The schema has checked every field but `datetime` and `cursorToken`: `datetime` goes with its
 * length and `cursorToken` last, each marked when absent (an empty token is an error, not its
 * absence), so that no two queries share a key.
 */
function answerKey(q: Static<typeof TelegramListV2Query>): string {
  const { datetime, cursorToken } = q;
  return (
    `${q.formatMode ?? 'raw'}|${q.xmlReport === 'true'}|${q.test ?? 'no'}|${q.limit ?? 20}|${q.type ?? ''}|` +
    `${q['type[]'] ?? '-'}|${datetime === undefined ? '-' : `${datetime.length}|${datetime}`}|` +
    `${cursorToken === undefined ? '-' : `+${cursorToken}`}`
  );
}

export function registerTelegramLists(app: App, ctx: AppContext, deps: ListDeps): void {
  registerListV2(app, ctx, deps);
  registerListV1(app, ctx, deps);
}

/** `GET /v2/telegram` (docs/data-api.md). */
function registerListV2(app: App, ctx: AppContext, deps: ListDeps): void {
  const answers = new SerialTaggedCache<ItemsAnswer>(deps.cache, {
    maxBytes: keptTelegramAnswerBytes(ctx.config.answerCacheBytes),
    maxAgeMs: Infinity,
    bytesOf: (answer) => answer.byteLength,
  });
  app.get(
    '/v2/telegram',
    {
      config: { scopes: ['telegram.list'] },
      schema: {
        summary: 'Telegram list (v2)',
        description:
          'Telegrams of the contracted classifications, newest first; early warnings excluded. Scope `telegram.list`.',
        tags: ['telegrams'],
        querystring: TelegramListV2Query,
        response: { 200: TelegramListV2, ...errorResponses },
      },
      schemaErrorFormatter: documentedValidation(telegramListV2Messages),
    },
    async (request, reply) => {
      const listed = narrowed(
        await listedClassifications(deps, request.principal.accountId),
        request.query.classification,
      );
      const dataUrl = publicUrls(ctx.config, request).data;
      const answer = await answers.get(`${listed.key}\n${dataUrl}\n${answerKey(request.query)}`, () =>
        listV2Answer(ctx, deps.cache, request.query, listed.classifications, dataUrl),
      );
      // Items are pre-serialised per telegram (telegram-items.ts): the bytes go out as they are, and
      // the response schema documents their shape.
      return reply
        .type('application/json; charset=utf-8')
        .send(answer.stamp(ctx.clock.now()) as unknown as Static<typeof TelegramListV2>);
    },
  );
}

/** The answer to one `/v2/telegram` query, before its responseId and responseTime. */
async function listV2Answer(
  ctx: AppContext,
  cache: TelegramCache,
  query: Static<typeof TelegramListV2Query>,
  classifications: string[],
  dataUrl: string,
): Promise<ItemsAnswer> {
  const formatMode = query.formatMode ?? 'raw';
  const withXmlReport = query.xmlReport === 'true';
  const range = parseDatetimeRange(query.datetime);
  const cursor =
    query.cursorToken === undefined ? undefined : decodeCursor(V2, query.cursorToken, 'cursorToken');
  const q: TelegramQuery = {
    classifications,
    types: typeFilter(query.type, query['type[]']),
    test: query.test ?? 'no',
    // json mode replaces each XML telegram by its conversion; an XML without one is not listed.
    formats: formatMode === 'json' ? ['a/n', 'binary', 'json'] : ['xml', 'a/n', 'binary'],
    receivedFrom: range.from,
    receivedBefore: range.before,
    before: cursor?.direction === 'older' ? cursor.serial : undefined,
    after: cursor?.direction === 'newer' ? cursor.serial : undefined,
    limit: query.limit === undefined ? 20 : Number(query.limit),
    withXmlReport,
  };
  const page = await readTelegramPage(ctx.db, cache, q);
  const last = page.items.at(-1);
  return new ItemsAnswer(v2ItemsJson(page.items, dataUrl, withXmlReport), {
    ...(q.after === undefined && page.truncated && last
      ? { nextToken: encodeCursor(V2, 'older', last.serial) }
      : {}),
    nextPooling: encodeCursor(V2, 'newer', pollingPosition(page, q.after)),
    nextPoolingInterval: ctx.config.pollingIntervalMs,
  });
}

/** `GET /telegram/v1/list`, the deprecated former shape. */
function registerListV1(app: App, ctx: AppContext, deps: ListDeps): void {
  app.get(
    '/telegram/v1/list',
    {
      config: { scopes: ['telegram.list'] },
      schema: {
        summary: 'Telegram list (v1, deprecated)',
        description: 'The former list shape. Scope `telegram.list`.',
        tags: ['telegrams'],
        deprecated: true,
        querystring: TelegramListV1Query,
        response: { 200: TelegramListV1, ...errorResponses },
      },
    },
    async (request) => {
      const { query } = request;
      const types = typeFilter(query.type, query['type[]']);
      const withXml = query.xml === 'true';
      const test = ({ false: 'no', true: 'including', only: 'only' } as const)[query.test ?? 'false'];
      const limit = query.limit === undefined ? 100 : Number(query.limit);
      const newCatch = Number(query.newCatch ?? '0');
      const older =
        query.nextToken === undefined
          ? undefined
          : decodeCursor(V1, query.nextToken, 'nextToken', ['older']).serial;

      const q: TelegramQuery = {
        classifications: (await listedClassifications(deps, request.principal.accountId)).classifications,
        types,
        test,
        formats: ['xml', 'a/n', 'binary'],
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
