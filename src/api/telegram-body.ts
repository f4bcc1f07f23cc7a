import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyError } from 'fastify';
import { Type } from 'typebox';
import type { CodedError } from '../errors.ts';
import { requireScope } from '../access/authenticate.ts';
import { classScope } from '../scopes.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { describeError, HttpError } from '../http/errors.ts';
import { renderPathErrors } from '../http/path-errors.ts';
import type { TelegramFormat } from '../telegrams/record.ts';
import { loadBody } from '../telegrams/store.ts';
import { ifNoneMatch } from '../http/conditional.ts';

const gunzipAsync = promisify(gunzip);
const ID = /^[0-9a-f]{96}$/;

const CONTENT_TYPES: Record<TelegramFormat, string> = {
  xml: 'application/xml; charset=utf-8',
  json: 'application/json; charset=utf-8',
  'a/n': 'text/plain; charset=utf-8',
  binary: 'application/octet-stream',
};

const BODY_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
} as const;

/**
 * Whether Accept-Encoding admits gzip: named with a weight above 0, or, when not named at all, by
 * `*` (RFC 9110 §12.5.3: `gzip;q=0` refuses it whatever the wildcard says).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    weights.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get('gzip') ?? weights.get('*');
  return weight !== undefined && weight > 0;
}

/**
 * GET {data_url}/v1/:id — the telegram body, uncompressed unless the client accepts gzip
 * (docs/api-contract.md "Body delivery"). Bodies never change, so responses are cacheable forever.
 * Errors on this host are plain text.
 */
export async function registerTelegramBody(
  app: App,
  ctx: AppContext,
  deps: { contracted: (accountId: number) => Promise<Set<string>> },
): Promise<void> {
  renderPathErrors(app, '/v1/', (reply, status, message) =>
    reply.code(status).type('text/plain; charset=utf-8').send(message),
  );
  await app.register(async (scope: App) => {
    // A telegram is data from outside: a browser must neither sniff it into HTML nor run a script
    // it carries (an XHTML <script> in XML), whatever origin serves it (docs/security.md).
    scope.addHook('onRequest', async (_request, reply) => {
      reply.headers(BODY_SECURITY_HEADERS);
    });
    // Every error is plain text here, a failure of the server's (500, 503 with Retry-After) too.
    scope.setErrorHandler((err: FastifyError | CodedError, request, reply) => {
      const { status, message, headers } = describeError(err);
      if (status >= 500) request.log.error({ err, route: request.routeOptions.url }, 'request failed');
      return reply.code(status).headers(headers).type('text/plain; charset=utf-8').send(message);
    });
    scope.get(
      '/v1/:id',
      {
        config: { scopes: ['telegram.data'] },
        schema: {
          summary: 'Telegram body',
          description:
            'The body of a telegram by id (the `url` of list items), for an account contracted for its classification (404 otherwise). Scopes `telegram.data` and the class scope. ' +
            'XML as application/xml, A/N as text/plain, binary as application/octet-stream; errors are plain text.',
          tags: ['telegrams'],
          params: Type.Object({ id: Type.String({ description: 'Telegram id (96 hex characters)' }) }),
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const found = ID.test(id) ? await loadBody(ctx.db, id) : null;
        // A classification the account has no contract for is answered like an unknown id.
        const contracted =
          found && (await deps.contracted(request.principal.accountId)).has(found.classification);
        if (!found || !contracted) throw new HttpError('NOT_FOUND');
        requireScope(request.principal, classScope(found.classification));

        reply.headers({
          'cache-control': 'private, max-age=31536000, immutable',
          etag: `"${id}"`,
          vary: 'Accept-Encoding, Authorization',
          'content-type': CONTENT_TYPES[found.format],
        });
        if (ifNoneMatch(request.headers['if-none-match'], `"${id}"`)) return reply.code(304).send();
        if (found.compression === 'gzip') {
          if (acceptsGzip(request.headers['accept-encoding'])) {
            return reply.header('content-encoding', 'gzip').send(found.body);
          }
          return reply.send(await gunzipAsync(found.body));
        }
        return reply.send(found.body);
      },
    );
  });
}
