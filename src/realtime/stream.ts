/**
 * `GET /v2/stream` (docs/realtime.md "Server-sent events"): the real-time delivery over plain HTTP.
 * The request starts a session like `POST /v2/socket` (same scope, same connection limit, listed in
 * `GET /v2/socket`) and redeems it at once; the response is a stream of server-sent events, one
 * `data` event per telegram with the telegram id as its event id. `Last-Event-ID` (sent by a
 * browser's `EventSource` when it reconnects) or `?after=` resumes as a socket's `after` does.
 * Every refusal (bad query, unknown `after`, no contract, connections full) is an ordinary JSON
 * error answered before anything is opened. A HEAD request gets the stream's headers alone and
 * opens nothing.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { keepAliveInterval } from '../http/keep-alive.ts';
import { errorBody } from '../http/envelope.ts';
import { HttpError, describeError, documentedValidation } from '../http/errors.ts';
import { requireClassificationScopes, startSessionFor } from '../http/session-start.ts';
import type { App } from '../http/surface.ts';
import { endSessions, type SessionSpec, type SessionStore } from '../sessions/socket-sessions.ts';
import { resumeMessages, resumePoint, type ResumeMessages } from '../telegrams/resume-point.ts';
import type { CatchUp } from './catch-up.ts';
import type { OpenedSession, Refusal, SessionGate } from './gate.ts';
import { compileFilter } from './filter.ts';
import type { Hub } from './hub.ts';
import { closeCodes } from './protocol.ts';
import { SseConnection } from './sse-connection.ts';
import { StreamQuery, streamMessages, streamSpec, type StreamQueryValue } from './stream-query.ts';

export const STREAM_PATH = '/v2/stream';

/** The headers of a stream's response (`x-accel-buffering`: nginx passes each event on at once). */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-accel-buffering': 'no',
} as const;

/** The route's description in the OpenAPI document, with runnable examples. */
const STREAM_DESCRIPTION = `The real-time stream over plain HTTP (scope \`socket.start\`; counted, listed and closed like a socket).
Each telegram is one event: \`event: data\`, \`id:\` the telegram id, \`data:\` the WebSocket \`data\` message.
A comment line comes every 15 s. \`Last-Event-ID\` or \`after\` resumes after a telegram: every one stored since, then the live stream.

    curl -N "$BASE/v2/stream?classifications=eew.forecast&formatMode=json" -H "Authorization: Bearer $TOKEN"
    curl -N "$BASE/v2/stream?classifications=eew.forecast&after=$LAST_ID" -H "Authorization: Bearer $TOKEN"

In a browser (it resumes by itself with Last-Event-ID):

    const es = new EventSource(BASE + '/v2/stream?classifications=eew.forecast&key=' + apiKey);
    es.addEventListener('data', (e) => console.log(JSON.parse(e.data)));`;

export interface StreamOptions {
  hub: Hub;
  gate: SessionGate;
  catchUp: CatchUp;
  store: SessionStore;
  /** Bytes a stream may have queued before it is cut off as a slow consumer (as a socket). */
  maxBufferedBytes: number;
  closeGraceMs: number;
}

/**
 * The id a stream's position line names, given the last serial the process handed out (undefined:
 * no line): the telegram the stream resumes after should it drop while it receives nothing.
 */
export type PositionOf = (handedOut: number) => string | undefined;

export interface Streams {
  /** Stops the keep-alive and refuses new streams (shutdown; the hub's connections are closed apart). */
  close(): void;
  /** False once shutting down: new streams are refused. */
  readonly accepting: boolean;
  /**
   * Takes the response over and delivers the opened connection's telegrams to it as to a socket,
   * after `greeting` (a comment line); `ended` runs once the response closed. Once shutting down,
   * `ended` runs at once and it throws BUSY (503) instead. `positionOf` names its position (by
   * default the telegram handed out last, of any classification).
   */
  serve(
    reply: FastifyReply,
    opened: OpenedSession,
    greeting: string,
    ended: (conn: SseConnection) => void,
    positionOf?: PositionOf,
  ): void;
}

export function registerStream(app: App, ctx: AppContext, options: StreamOptions): Streams {
  const streams = createStreams(ctx, options);
  app.get<{ Querystring: StreamQueryValue }>(
    STREAM_PATH,
    {
      config: { scopes: ['socket.start'] },
      schema: {
        summary: 'Telegrams as server-sent events',
        description: STREAM_DESCRIPTION,
        querystring: StreamQuery,
      },
      schemaErrorFormatter: documentedValidation(streamMessages),
    },
    async (request, reply) => {
      try {
        if (!streams.accepting) throw new HttpError('BUSY');
        const spec = requestedSpec(request);
        if (request.method === 'HEAD') return answerHead(reply);
        const opened = await openSession(ctx, options, request, spec);
        streams.serve(reply, opened, `: socket ${opened.socketId}\n\n`, (conn) =>
          options.gate.closed(conn.socketId, conn.closeCode),
        );
      } catch (err) {
        if (!answeredAsRetry(request, reply, err, ctx.clock.now())) throw err;
      }
    },
  );
  return streams;
}

/** What the request asks for, refused (400, 403) when its query or its scopes do not allow it. */
function requestedSpec(request: FastifyRequest<{ Querystring: StreamQueryValue }>): SessionSpec {
  const spec = streamSpec(request.query);
  if ('invalid' in spec) throw new HttpError('INVALID_FIELD', { detail: spec.invalid });
  requireClassificationScopes(request.principal, spec.classifications);
  return spec;
}

/** Refusals that pass by themselves: the account's connections full, an address over its share, a stop, the database. */
const PASSING_STATUSES = new Set([409, 429, 503]);
/** The wait before a retry when the refusal names none (a stop, the connection limit). */
const DEFAULT_RETRY_S = 5;

/**
 * Answers a refusal that passes by itself, to a client that reads event streams (`Accept:
 * text/event-stream`, as every EventSource sends), as a stream of one `error` event (the JSON error,
 * as it would have been answered) after a `retry:` time of one to two times its `Retry-After`: a
 * browser gives up for good at any status but 200, while with this it tries again by itself, with
 * its Last-Event-ID, and a crowd refused at once comes back spread out. False for anything else:
 * the caller throws the error, answered as usual.
 */
export function answeredAsRetry(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  now: number,
): boolean {
  if (!(err instanceof Error) || !request.headers.accept?.includes('text/event-stream')) return false;
  const { status, message, headers } = describeError(err as FastifyError);
  if (!PASSING_STATUSES.has(status)) return false;
  const retryMs = Math.round(
    (Number(headers['retry-after']) || DEFAULT_RETRY_S) * (1 + Math.random()) * 1000,
  );
  reply.hijack();
  reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
  reply.raw.end(
    `retry: ${retryMs}\nevent: error\ndata: ${JSON.stringify(errorBody(status, message, now))}\n\n`,
  );
  return true;
}

/**
 * A HEAD request (uptime checks): the stream's headers and no body, at once. It opens nothing: a
 * stream's response is never sent for HEAD, so an opened one would hang and hold its slot.
 */
export function answerHead(reply: FastifyReply): FastifyReply {
  return reply.code(200).headers(STREAM_HEADERS).send();
}

/** Starts the request's session and redeems it at once; every refusal is an ordinary JSON error. */
async function openSession(
  ctx: AppContext,
  options: StreamOptions,
  request: FastifyRequest<{ Querystring: StreamQueryValue }>,
  spec: SessionSpec,
): Promise<OpenedSession> {
  const { principal } = request;
  spec.resumeAfter = await resumeSerial(ctx, request.headers['last-event-id'], request.query.after);
  const started = await startSessionFor(ctx, options.store, principal, spec);
  const opened = await options.gate.open(started.ticket, request.ip).catch(async (err: unknown) => {
    // Nobody holds the ticket: its session would hold a slot of the account until it expires (as it
    // still does when the store cannot record the end either).
    await endSessions(ctx.db, [started.session.id], ctx.clock.now(), null).catch(() => {});
    throw err;
  });
  if ('code' in opened) throw refusalError(opened);
  return opened;
}

/** The process's open streams: their keep-alive, and the hand-over of a response to the hub. */
function createStreams(ctx: AppContext, options: StreamOptions): Streams {
  /** Each open stream, with what names its position. */
  const open = new Map<SseConnection, PositionOf>();
  let accepting = true;
  /**
   * An `id:` line without data: it dispatches no event, but sets the client's Last-Event-ID (as the
   * HTML standard has browsers do) to the last telegram the dispatcher handed out, so that a stream
   * that received no event yet (or none for a long time) resumes from there after a drop instead of
   * going live and missing what came meanwhile. Only for a connection handed everything up to it
   * (`hub.isSettled`); the telegram may be of any classification, and tells no more than that one
   * was stored (a public stream's names a public one: public-stream.ts).
   */
  const handedOutLast: PositionOf = (handedOut) => ctx.telegrams.get(handedOut)?.id;
  const positionLine = (positionOf: PositionOf): string | null => {
    const id = positionOf(options.catchUp.position);
    return id === undefined ? null : `id: ${id}\n\n`;
  };
  const keepAlive = setInterval(
    () => {
      // One block per kind of position, built once for every stream of that kind.
      const blocks = new Map<PositionOf, Buffer | undefined>();
      const blockOf = (positionOf: PositionOf) => {
        if (!blocks.has(positionOf)) {
          const position = positionLine(positionOf);
          blocks.set(positionOf, position === null ? undefined : Buffer.from(`: keep-alive\n${position}`));
        }
        return blocks.get(positionOf);
      };
      for (const [conn, positionOf] of open)
        conn.keepAlive(options.hub.isSettled(conn) ? blockOf(positionOf) : undefined);
    },
    keepAliveInterval(ctx.config, ctx.config.pingIntervalMs),
  );
  keepAlive.unref();

  function serve(
    reply: FastifyReply,
    opened: OpenedSession,
    greeting: string,
    ended: (conn: SseConnection) => void,
    positionOf: PositionOf = handedOutLast,
  ): void {
    const res = reply.raw;
    const conn = new SseConnection(
      res,
      opened.socketId,
      compileFilter(opened.filter),
      ctx.clock.now(),
      options.maxBufferedBytes,
      options.closeGraceMs,
    );
    if (!accepting) {
      // The stop began while the connection was being opened: the connections were closed already,
      // and the HTTP server would wait for this one. It ends as they did (4503); the client is told
      // 503, as a stream asked for during the stop.
      conn.closeCode = closeCodes.serverRestart;
      ended(conn);
      throw new HttpError('BUSY');
    }
    reply.hijack();
    // The client went away while its connection was being opened: no 'close' is to come.
    if (!res.socket || res.socket.destroyed) return ended(conn);
    // The headers set so far (CORS) go out with the stream's own.
    res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
    // Headers and a first line at once: a client sees the stream open before the first telegram.
    res.write(greeting);
    open.set(conn, positionOf);
    res.once('close', () => {
      open.delete(conn);
      options.hub.remove(conn);
      ended(conn);
    });
    const after = opened.resumeAfter ?? null;
    if (after === null) {
      options.hub.add(conn);
      // Its position from the start (in the same turn as joining: nothing is broadcast between).
      const position = options.hub.isSettled(conn) ? positionLine(positionOf) : null;
      if (position !== null) res.write(position);
    } else void options.catchUp.start(conn, after);
  }

  return {
    close() {
      accepting = false;
      clearInterval(keepAlive);
    },
    get accepting() {
      return accepting;
    },
    serve,
  };
}

/** How far back a stream resumes, and the messages of the `after` it refuses. */
export interface ResumeRule {
  maxBehind: number;
  messages: ResumeMessages;
}

/** The serial to resume after: `Last-Event-ID` first (a browser's own reconnect), else `after`. */
export async function resumeSerial(
  ctx: AppContext,
  lastEventId: string | string[] | undefined,
  after: string | undefined,
  rule: ResumeRule = { maxBehind: ctx.config.resumeMaxTelegrams, messages: resumeMessages },
): Promise<number | null> {
  // An `EventSource` that has seen no event sends none (an empty one is the same).
  const [field, id] = lastEventId ? ['Last-Event-ID', String(lastEventId)] : ['after', after];
  if (id === undefined) return null;
  const { maxBehind } = rule;
  const point = await resumePoint(ctx.db, ctx.telegrams, field, id, maxBehind, rule.messages);
  if (point.ok) return point.serial;
  // An EventSource's own reconnect: refused, it would never try again (a browser retries no
  // refusal), and a quiet page's last telegram falls behind the bound within days. It resumes from
  // as far back as the server goes (live when resuming is off); older ones are the list's.
  if (field === 'Last-Event-ID' && point.reason !== 'malformed')
    return point.reason === 'off' ? null : Math.max(0, ctx.telegrams.newestSerial - maxBehind);
  throw new HttpError('INVALID_FIELD', { detail: point.message });
}

/** A session that could not open right after its start: its contracts or slots changed meanwhile. */
function refusalError(refusal: Refusal): HttpError {
  if (refusal.code === closeCodes.connectionLimit) return new HttpError('SOCKETS_FULL');
  if (refusal.code === closeCodes.contractEnded) return new HttpError('NO_CONTRACT');
  return new HttpError('AUTH_REQUIRED');
}
