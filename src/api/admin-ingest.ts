import { Type } from 'typebox';
import { getAccount } from '../accounts/accounts.ts';
import { ingestDepsOf, type AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { okBody } from '../http/envelope.ts';
import { badQuery, HttpError } from '../http/errors.ts';
import { sharedBodyParser } from '../http/shared-body.ts';
import { ingestTelegram } from '../telegrams/ingest.ts';
import type { IngestHints } from '../telegrams/prepare.ts';
import { OFF_LOOP_BYTES } from '../telegrams/size.ts';
import { errorResponses, IngestResult } from './schemas.ts';

const SCOPE = 'admin.telegram.ingest';
/** A reception time is accepted from 2000-01-01 to one day ahead of now (docs/data-api.md). */
const EARLIEST_RECEPTION = Date.UTC(2000, 0, 1);
const LATEST_RECEPTION_AHEAD_MS = 24 * 3_600_000;

const query = Type.Object(
  {
    type: Type.Optional(Type.String({ description: 'Data type code, when the body has no JMA header' })),
    author: Type.Optional(Type.String({ description: 'Issuing office code (4 letters)' })),
    time: Type.Optional(Type.String({ description: 'head.time (ISO 8601)' })),
    designation: Type.Optional(Type.String({ description: 'Designation (e.g. CCA)' })),
    target: Type.Optional(Type.String({ description: 'Target observation point code' })),
    receivedTime: Type.Optional(Type.String({ description: 'Reception time (ISO 8601; default now)' })),
    fileName: Type.Optional(
      Type.String({ description: 'Original file name (JMA feed names carry the type)' }),
    ),
  },
  { additionalProperties: true },
);

/**
 * POST /admin/v1/telegrams — ingest one raw telegram (any content type) for an administrator
 * holding `admin.telegram.ingest`. Rejections are 400 with the reason; a duplicate is acknowledged; a
 * body over NAMAZU_MAX_TELEGRAM_BYTES is 413 `Payload too large.` (docs/telegrams.md "Size").
 */
export async function registerAdminIngest(app: App, ctx: AppContext): Promise<void> {
  const ingestDeps = ingestDepsOf(ctx, 'http');
  await app.register(async (scoped: App) => {
    // The body is the telegram itself, whatever its declared type.
    scoped.removeAllContentTypeParsers();
    // A large one is read into shared memory, so that its prepare worker gets it without a copy.
    scoped.addContentTypeParser(
      '*',
      sharedBodyParser(ctx.config.maxTelegramBytes, OFF_LOOP_BYTES, ctx.uploadBuffers),
    );
    // A body over the limit is refused by Fastify (413) as soon as its size is known: said and counted.
    scoped.addHook('onError', async (request, _reply, error) => {
      if ((error as { code?: string }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
      ctx.metrics.telegramsTooLarge.inc({ path: 'http' });
      request.log.warn({ limit: ctx.config.maxTelegramBytes }, 'telegram refused: larger than the limit');
    });
    scoped.post(
      '/admin/v1/telegrams',
      {
        config: { scopes: [SCOPE], fresh: true },
        bodyLimit: ctx.config.maxTelegramBytes,
        schema: {
          summary: 'Ingest a telegram',
          description:
            'The request body is one raw telegram: JMA XML, or A/N / binary with a JMA header line. ' +
            'Administrator accounts with scope `admin.telegram.ingest` only.',
          tags: ['admin'],
          querystring: query,
          response: { 200: IngestResult, ...errorResponses },
        },
      },
      async (request) => {
        const account = await getAccount(ctx.db, request.principal.accountId);
        if (!account?.isAdmin) throw new HttpError('INSUFFICIENT_SCOPE', { detail: SCOPE });
        const { receivedTime: receivedRaw, ...given } = request.query;
        const receivedTime = receivedRaw === undefined ? ctx.clock.now() : Date.parse(receivedRaw);
        if (!(
          receivedTime >= EARLIEST_RECEPTION && receivedTime <= ctx.clock.now() + LATEST_RECEPTION_AHEAD_MS
        ))
          throw badQuery('receivedTime');
        const hints: IngestHints = { receivedTime };
        for (const name of ['type', 'author', 'time', 'designation', 'target', 'fileName'] as const) {
          const v = given[name];
          if (v !== undefined) hints[name] = v;
        }
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Nothing ingest returns or keeps refers to the bytes given it: they can be read into again.
        const deps = { ...ingestDeps, log: request.log };
        const outcome = await ingestTelegram(deps, body, hints).finally(() =>
          ctx.uploadBuffers.giveBack(body),
        );
        if (!outcome.ok) throw new HttpError('TELEGRAM_REJECTED', { detail: outcome.reason });
        return okBody(outcome.stored, ctx.clock.now());
      },
    );
  });
}
