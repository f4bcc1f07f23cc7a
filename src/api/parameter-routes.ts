import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import { envelope } from '../http/envelope.ts';
import { HttpError } from '../http/errors.ts';
import type { App } from '../http/surface.ts';
import type { StationLists } from '../parameter/lists.ts';
import type { StationKind } from '../parameter/stations.ts';
import { EarthquakeStationList, errorResponses, TsunamiStationList } from './schemas.ts';
import { ifNoneMatch } from '../http/conditional.ts';

/** Clients are asked to read the lists at start-up or every few days: an hour in a private cache. */
const CACHE_CONTROL = 'private, max-age=3600';

/** A list's body after the envelope, serialised once per version, and the ETag naming it. */
interface RenderedList {
  etag: string;
  tail: Buffer;
}

function render(lists: StationLists, kind: StationKind): RenderedList {
  const { changeTime, version, items } = lists.get(kind);
  const tail = JSON.stringify({ changeTime, version, items }).slice(1);
  return { etag: `W/"${kind}-${version}"`, tail: Buffer.from(`,${tail}`) };
}

/**
 * GET {base_url}/v2/parameter/earthquake/station and /v2/parameter/tsunami/station — JMA's
 * seismic-intensity stations and tsunami observation points (docs/parameter.md). For accounts with
 * an earthquake and tsunami contract (402 `No contract.` otherwise), like the production service.
 * The items are serialised once per list version; a request with the list's ETag gets 304.
 */
export function registerParameterRoutes(
  app: App,
  ctx: AppContext,
  deps: { lists: StationLists; contracted: (accountId: number) => Promise<Set<string>> },
): void {
  const rendered = new Map<StationKind, RenderedList>();
  deps.lists.onChange(() => rendered.clear());
  const routes = [
    ['earthquake', 'parameter.earthquake', EarthquakeStationList, 'Seismic-intensity stations'],
    ['tsunami', 'parameter.tsunami', TsunamiStationList, 'Tsunami observation points'],
  ] as const;
  for (const [kind, scope, schema, summary] of routes) {
    app.get(
      `/v2/parameter/${kind}/station`,
      {
        config: { scopes: [scope] },
        schema: {
          summary,
          description: `${summary} from JMA's public lists (出典：気象庁). Scope \`${scope}\`; an earthquake and tsunami contract (\`telegram.earthquake\`). Cacheable: ETag and Cache-Control.`,
          tags: ['parameters'],
          response: { 200: schema, 402: errorResponses[400], ...errorResponses },
        },
      },
      async (request, reply) => {
        if (!(await deps.contracted(request.principal.accountId)).has('telegram.earthquake'))
          throw new HttpError('NO_CONTRACT');
        let list = rendered.get(kind);
        if (!list) rendered.set(kind, (list = render(deps.lists, kind)));
        reply.headers({ etag: list.etag, 'cache-control': CACHE_CONTROL, vary: 'Authorization' });
        const head = envelope(ctx.clock.now());
        const open = `{"responseId":"${head.responseId}","responseTime":"${head.responseTime}","status":"ok"`;
        // The list goes out as the bytes rendered once per version; the response schema documents them.
        const notModified = ifNoneMatch(request.headers['if-none-match'], list.etag);
        if (notModified) reply.code(304);
        const body = notModified ? undefined : Buffer.concat([Buffer.from(open), list.tail]);
        return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof schema>);
      },
    );
  }
}
