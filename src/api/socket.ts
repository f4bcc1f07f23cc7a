/**
 * WebSocket sessions on the data API: POST /v2/socket (start), GET /v2/socket (list) and
 * DELETE /v2/socket/:id (close; docs/api-contract.md "Tickets").
 */
import { planByClassification } from '../accounts/plans.ts';
import { createAuthenticator, requireScope } from '../auth/authenticate.ts';
import { classScope } from '../auth/scopes.ts';
import { channels } from '../bus/types.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/app.ts';
import { okBody } from '../http/envelope.ts';
import { HttpError, badQuery } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { SessionStatus, SocketSession } from '../sessions/sessions.ts';
import {
  CLOSED_BY_ACCOUNT,
  TICKET_VALIDITY_MS,
  WEBSOCKET_PATH,
  WEBSOCKET_PROTOCOL,
  closeSessionOf,
  formatsOf,
  listSessions,
  sessionStoreOptions,
  startSession,
} from '../sessions/sessions.ts';
import { parseStartRequest } from './socket-request.ts';

const LIST_DEFAULT = 20;
const LIST_MAX = 100;
const CURSOR_KIND = 'socket';

export const socketErrors = {
  noContract: 'No contract.',
  full: 'The maximum number of simultaneous connections is full.',
  notFound: 'Socket ID not found.',
} as const;

/** Opaque `nextToken`: the position (an id) in the socket list, nothing else. */
function encodeCursor(beforeId: number): string {
  return Buffer.from(JSON.stringify([CURSOR_KIND, beforeId])).toString('base64url');
}

function decodeCursor(token: string): number | null {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && v[0] === CURSOR_KIND && Number.isSafeInteger(v[1]) && v[1] > 0)
      return v[1] as number;
  } catch {
    // not a cursor of this list
  }
  return null;
}

const positiveInt = (raw: unknown, max = Number.MAX_SAFE_INTEGER): number | null => {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n <= max ? n : null;
};

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

export async function registerSocketApi(app: App, ctx: AppContext): Promise<void> {
  const auth = await createAuthenticator(ctx);
  const store = sessionStoreOptions(ctx.pepper, ctx.config.pingIntervalMs);

  await app.register(async (scope) => {
    // Any Content-Type (or none) is read as raw bytes and parsed as JSON by the handler.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    scope.post('/v2/socket', async (request) => {
      const principal = await auth.authenticate(request);
      requireScope(principal, 'socket.start');
      const spec = parseStartRequest(request.body as Buffer | undefined);
      if ('error' in spec) throw new HttpError(400, spec.error);
      for (const c of spec.classifications) {
        if (planByClassification(c)?.delivers) requireScope(principal, classScope(c));
      }
      const started = await startSession(ctx.db, store, principal.accountId, spec, ctx.clock.now());
      if (!started.ok)
        throw started.reason === 'full'
          ? new HttpError(409, socketErrors.full)
          : new HttpError(402, socketErrors.noContract);
      const { session, ticket } = started;
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

  app.get('/v2/socket', async (request) => {
    const principal = await auth.authenticate(request);
    requireScope(principal, 'socket.list');
    const q = request.query as Record<string, unknown>;
    if (q.id !== undefined) {
      const id = positiveInt(q.id);
      if (id === null) throw badQuery('id');
      const { items } = await listSessions(ctx.db, principal.accountId, { id, limit: 1 });
      return okBody({ items: items.map(listItem) }, ctx.clock.now());
    }
    let status: SessionStatus | undefined;
    if (q.status !== undefined) {
      if (q.status !== 'waiting' && q.status !== 'open' && q.status !== 'closed') throw badQuery('status');
      status = q.status;
    }
    let limit = LIST_DEFAULT;
    if (q.limit !== undefined) {
      const n = positiveInt(q.limit, LIST_MAX);
      if (n === null) throw badQuery('limit');
      limit = n;
    }
    let beforeId: number | undefined;
    if (q.cursorToken !== undefined) {
      const decoded = typeof q.cursorToken === 'string' ? decodeCursor(q.cursorToken) : null;
      if (decoded === null) throw badQuery('cursorToken');
      beforeId = decoded;
    }
    const { items, more } = await listSessions(ctx.db, principal.accountId, { status, beforeId, limit });
    const body: { items: ReturnType<typeof listItem>[]; nextToken?: string } = { items: items.map(listItem) };
    if (more) body.nextToken = encodeCursor(items[items.length - 1]!.id);
    return okBody(body, ctx.clock.now());
  });

  app.delete('/v2/socket/:id', async (request, reply) => {
    const principal = await auth.authenticate(request);
    requireScope(principal, 'socket.close');
    const id = positiveInt((request.params as { id: string }).id);
    if (id === null || !(await closeSessionOf(ctx.db, principal.accountId, id, ctx.clock.now())))
      throw new HttpError(404, socketErrors.notFound);
    // Whichever process holds the connection closes it with 4808.
    await ctx.bus.publish(channels.socketClose, JSON.stringify({ socketId: id, code: CLOSED_BY_ACCOUNT }));
    return reply.code(204).send();
  });
}
