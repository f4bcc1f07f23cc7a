/**
 * WebSocket sessions on the data API: POST /v2/socket (start), GET /v2/socket (list) and
 * DELETE /v2/socket/:id (close; docs/api-contract.md "Tickets").
 */
import type { FastifyRequest } from 'fastify';
import { busCodecs } from '../bus/codecs.ts';
import type { AppContext } from '../context.ts';
import { acceptJsonWhateverType, ignoreBodies, NOT_JSON_MESSAGE } from '../http/json-body.ts';
import type { App } from '../http/surface.ts';
import { okBody } from '../http/envelope.ts';
import { HttpError, badQuery, documentedValidation } from '../http/errors.ts';
import { closeLocalSocket } from '../http/local-sockets.ts';
import { publicUrls } from '../http/public-urls.ts';
import { requireClassificationScopes, startSessionFor } from '../http/session-start.ts';
import type { SessionSpec, SocketSession } from '../sessions/socket-sessions.ts';
import {
  CLOSED_BY_ACCOUNT,
  TICKET_VALIDITY_MS,
  WEBSOCKET_PATH,
  WEBSOCKET_PROTOCOL,
  closeSessionOf,
  formatsOf,
  listSessions,
  sessionStore,
} from '../sessions/socket-sessions.ts';
import { resumePoint } from '../telegrams/resume-point.ts';
import { parsePlaceFilters } from '../telegrams/place-filters.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  MAX_APP_NAME_BYTES,
  socketFormatsMessages,
  socketStartMessages,
  SocketListQuery,
  SocketStartBody,
} from './schemas.ts';
import { sharedPlugins, surfacePlugin } from '../http/plugins.ts';

const LIST_DEFAULT = 20;
/** The list name in this list's cursors (api/cursor.ts). */
const CURSOR_LIST = 'socket';

/** A session id from a path: a positive safe integer, or null. */
const positiveInt = (raw: string): number | null => {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
};

/**
 * The session a start request asks for: defaults filled, repeats dropped, `appName` bounded in bytes,
 * the filters by place and strength checked (telegrams/place-filters.ts).
 */
function sessionSpec(body: Static<typeof SocketStartBody>): SessionSpec {
  if (body.appName && Buffer.byteLength(body.appName) > MAX_APP_NAME_BYTES)
    throw new HttpError('INVALID_FIELD', { detail: socketStartMessages.appName });
  const place = parsePlaceFilters(body, 'body');
  if (!place.ok) throw new HttpError('INVALID_FIELD', { detail: place.message });
  return {
    ...place.value,
    classifications: [...new Set(body.classifications)],
    types: body.types?.length ? [...new Set(body.types)] : null,
    test: body.test ?? 'no',
    appName: body.appName ?? null,
    formatMode: formatModeOf(body),
  };
}

const FORMATS: ReadonlySet<unknown> = new Set(['xml', 'json', 'a/n', 'binary']);

/**
 * The session's mode from `formatMode` or from the production service's `formats` (never both):
 * sessions deliver by mode, so a list naming `json` is the json mode, any other the raw mode, and
 * the answer's `formats` says what the session receives.
 */
function formatModeOf(body: Static<typeof SocketStartBody>): SessionSpec['formatMode'] {
  const { formats } = body;
  if (formats === undefined || formats === null) return body.formatMode ?? 'raw';
  const invalid = (detail: string) => new HttpError('INVALID_FIELD', { detail });
  if (body.formatMode !== undefined && body.formatMode !== null)
    throw invalid(socketFormatsMessages.withFormatMode);
  if (!formats.every((f) => FORMATS.has(f))) throw invalid(socketFormatsMessages.incorrect);
  if (formats.includes('xml') && formats.includes('json')) throw invalid(socketFormatsMessages.xmlAndJson);
  return formats.includes('json') ? 'json' : 'raw';
}

/**
 * Validates without coercion: a JSON body holds real strings and arrays, and a number or a bare
 * string where a list belongs is refused (Fastify's query validator converts them).
 */
function strictValidator({ schema }: { schema: unknown }) {
  const check = Compile(schema as TSchema);
  return (data: unknown) => (check.Check(data) ? { value: data } : { error: check.Errors(data) });
}

function listItem(s: SocketSession) {
  return {
    id: s.id,
    // The ticket is stored as a digest only: the list shows its first characters.
    ticket: `${s.ticketHint}…`,
    classifications: s.classifications,
    test: s.test,
    types: s.types,
    formats: formatsOf(s.formatMode),
    appName: s.appName,
    start: s.start.toISOString(),
    end: s.end?.toISOString() ?? null,
    ping: s.ping?.toISOString() ?? null,
    ipAddress: s.ipAddress,
    server: s.server,
    status: s.status,
  };
}

/** `/v2/socket`: tickets for the WebSocket endpoint, the list of sessions, and their close. */
export const socketApi = surfacePlugin('namazu-socket-api', registerSocketApi, [
  sharedPlugins.authentication,
  sharedPlugins.localSockets,
]);

async function registerSocketApi(app: App, ctx: AppContext): Promise<void> {
  await registerSocketStart(app, ctx);
  registerSocketList(app, ctx);
  // A DELETE takes no body: a client's empty JSON (`Content-Type: application/json`, no bytes) is
  // not read, rather than refused.
  await app.register(async (scope: App) => {
    ignoreBodies(scope);
    registerSocketClose(scope, ctx);
  });
}

/** `POST /v2/socket`: a ticket for the WebSocket endpoint (its body is JSON whatever its type). */
async function registerSocketStart(app: App, ctx: AppContext): Promise<void> {
  const store = sessionStore(ctx.db, ctx.pepper, ctx.config.pingIntervalMs);

  await app.register(async (scope: App) => {
    acceptJsonWhateverType(scope);
    scope.setValidatorCompiler(strictValidator);

    const schema = { body: SocketStartBody };
    const schemaErrorFormatter = documentedValidation(socketStartMessages, NOT_JSON_MESSAGE);
    const config = { scopes: ['socket.start'] };
    scope.post('/v2/socket', { config, schema, schemaErrorFormatter }, async (request) => {
      const { principal } = request;
      const spec = sessionSpec(request.body);
      requireClassificationScopes(principal, spec.classifications);
      if (request.body.after) {
        // Resolved now: the ticket then opens a catch-up from a serial, wherever it is redeemed.
        const point = await resumePoint(
          ctx.db,
          ctx.telegrams,
          'after',
          request.body.after,
          ctx.config.resumeMaxTelegrams,
        );
        if (!point.ok) throw new HttpError('INVALID_FIELD', { detail: point.message });
        spec.resumeAfter = point.serial;
      }
      const { session, ticket } = await startSessionFor(ctx, store, principal, spec);
      const url = `${publicUrls(ctx.config, request).websocket}${WEBSOCKET_PATH}?ticket=${encodeURIComponent(ticket)}`;
      return okBody(
        {
          ticket,
          websocket: {
            id: session.id,
            url,
            protocol: [WEBSOCKET_PROTOCOL],
            expiration: TICKET_VALIDITY_MS / 1000,
          },
          classifications: session.classifications,
          test: session.test,
          types: session.types,
          formats: formatsOf(session.formatMode),
          appName: session.appName,
        },
        ctx.clock.now(),
      );
    });
  });
}

/** `GET /v2/socket`: the account's sessions, newest first, or one by id. */
function registerSocketList(app: App, ctx: AppContext): void {
  const listOptions = {
    config: { scopes: ['socket.list'] },
    schema: { querystring: SocketListQuery },
    // With `id`, every other parameter is ignored (service.md), its value too: only `id` (and the
    // credential `key`) is left to validate.
    preValidation: async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>;
      if (query.id === undefined) return;
      request.query = query.key === undefined ? { id: query.id } : { id: query.id, key: query.key };
    },
  };
  app.get('/v2/socket', listOptions, async (request) => {
    const { principal, query } = request;
    if (query.id !== undefined) {
      const id = positiveInt(query.id);
      if (id === null) throw badQuery('id');
      const { items } = await listSessions(ctx.db, principal.accountId, { id, limit: 1 });
      return okBody({ items: items.map(listItem) }, ctx.clock.now());
    }
    const limit = query.limit === undefined ? LIST_DEFAULT : Number(query.limit);
    let beforeId: number | undefined;
    if (query.cursorToken !== undefined) {
      beforeId = decodeCursor(CURSOR_LIST, query.cursorToken, 'cursorToken', ['older']).serial;
    }
    const { items, more } = await listSessions(ctx.db, principal.accountId, {
      status: query.status,
      beforeId,
      limit,
    });
    const body: { items: ReturnType<typeof listItem>[]; nextToken?: string } = { items: items.map(listItem) };
    if (more) body.nextToken = encodeCursor(CURSOR_LIST, 'older', items[items.length - 1]!.id);
    return okBody(body, ctx.clock.now());
  });
}

/** `DELETE /v2/socket/:id`: closes one of the account's sessions, wherever its connection is. */
function registerSocketClose(app: App, ctx: AppContext): void {
  const closeOptions = {
    config: { scopes: ['socket.close'] },
    // Any other id is a session that does not exist (404), not a malformed request.
    schema: { params: Type.Object({ id: Type.String() }) },
  };
  app.delete('/v2/socket/:id', closeOptions, async (request, reply) => {
    const { principal } = request;
    const id = positiveInt(request.params.id);
    if (id === null || !(await closeSessionOf(ctx.db, principal.accountId, id, ctx.clock.now())))
      throw new HttpError('SOCKET_NOT_FOUND');
    // Whichever process holds the connection closes it with 4808: this one at once, the others when
    // the bus tells them, or at their next ping tick if it does not (docs/realtime.md). The session
    // is closed in the database already, so a bus that is down never fails the request.
    closeLocalSocket(app, id);
    busCodecs.socketClose
      .publish(ctx.bus, { socketId: id, code: CLOSED_BY_ACCOUNT })
      .catch((err: unknown) => {
        request.log.warn({ err, socketId: id }, 'socket close announcement failed; the ping tick closes it');
      });
    return reply.code(204).send();
  });
}
