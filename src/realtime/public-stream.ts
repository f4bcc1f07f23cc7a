/**
 * The public streams (docs/realtime.md "Public streams"): the classifications an operator opens
 * with NAMAZU_PUBLIC_CLASSIFICATIONS, read without credentials. `GET /v2/public/stream` is
 * `GET /v2/stream` as server-sent events, and `/v2/public/websocket` speaks the `service.v2`
 * messages without a ticket; both take the stream's filters and resume point as query
 * parameters. Anonymous connections are no sessions: `public-admission.ts` bounds them, and a
 * resume catches up on NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS at most. With no public classification
 * the stream answers 404, and the WebSocket path is unknown.
 */
import { LRUCache } from 'lru-cache';
import { Compile } from 'typebox/compile';
import type { AppContext } from '../context.ts';
import { catalogueMessage, CodedError } from '../errors.ts';
import { HttpError, documentedValidation } from '../http/errors.ts';
import type { App } from '../http/surface.ts';
import { FailureLimiter } from '../security/failure-limiter.ts';
import { queryTelegrams, type TelegramQuery } from '../telegrams/store.ts';
import { publicResumeMessages } from '../telegrams/resume-point.ts';
import { deliveryFilterOf, type OpenedSession, type PublicSocketGate, type Refusal } from './gate.ts';
import { compileFilter, type CompiledFilter, type DeliveryFilter } from './filter.ts';
import { PublicAdmission, type Admission, type PublicTransport } from './public-admission.ts';
import { closeCodes, closeMessages } from './protocol.ts';
import {
  answerHead,
  answeredAsRetry,
  resumeSerial,
  type PositionOf,
  type ResumeRule,
  type Streams,
} from './stream.ts';
import {
  PublicStreamQuery,
  publicStreamSpec,
  streamMessages,
  type PublicStreamQueryValue,
} from './stream-query.ts';

export const PUBLIC_STREAM_PATH = '/v2/public/stream';
export const PUBLIC_WEBSOCKET_PATH = '/v2/public/websocket';
/** The window of the per-address count of new connections (NAMAZU_PUBLIC_CONNECTS_PER_MINUTE). */
const RATE_WINDOW_MS = 60_000;
/** Query strings of the public WebSocket whose reading is kept (least recently used dropped). */
const MAX_QUERIES_HELD = 256;
/** Close code of a public WebSocket whose query is refused: the protocol's bad-request code. */
const INVALID_QUERY = closeCodes.missingTicket;

const PUBLIC_STREAM_DESCRIPTION = `The public stream: the classifications the operator made public (NAMAZU_PUBLIC_CLASSIFICATIONS), without credentials; 404 when there are none.
Events, keep-alive and resume (\`Last-Event-ID\` or \`after\`) as \`GET /v2/stream\`. \`classifications\` (default: every public one) must be among the public ones.
Each process holds a bounded number of anonymous connections, in total (503) and per client address (429), and counts new ones per address and minute (429 with \`Retry-After\`).
The same delivery over a WebSocket, without a ticket: \`/v2/public/websocket?classifications=…\` (service.v2 messages).

    curl -N "$BASE/v2/public/stream?classifications=telegram.earthquake&formatMode=json"`;

const checkQuery = Compile(PublicStreamQuery);

/**
 * Registers the public stream's route (404 while no classification is public) and gives the
 * public WebSocket's gate, or undefined when public streams are off.
 */
export function registerPublicStreams(
  app: App,
  ctx: AppContext,
  streams: Streams,
): PublicSocketGate | undefined {
  const publicOnes = ctx.config.publicClassifications;
  const admission = publicAdmission(ctx);
  const resume = publicResume(ctx);
  if (publicOnes.length > 0) warnOfEarlyWarnings(ctx, publicOnes);
  const positionOf = publicOnes.length > 0 ? publicPosition(ctx, publicOnes) : undefined;

  app.get<{ Querystring: PublicStreamQueryValue }>(
    PUBLIC_STREAM_PATH,
    {
      schema: {
        summary: 'Public telegrams as server-sent events, without credentials',
        description: PUBLIC_STREAM_DESCRIPTION,
        tags: ['Real-time'],
        security: [],
        querystring: PublicStreamQuery,
      },
      schemaErrorFormatter: documentedValidation(streamMessages),
    },
    async (request, reply) => {
      if (publicOnes.length === 0) throw new HttpError('NOT_FOUND');
      try {
        if (!streams.accepting) throw new HttpError('BUSY');
        const spec = publicStreamSpec(request.query, publicOnes);
        if ('invalid' in spec) throw new HttpError('INVALID_FIELD', { detail: spec.invalid });
        // Before the admission: a HEAD takes no slot and no count of the address's rate.
        if (request.method === 'HEAD') return answerHead(reply);
        const { after } = request.query;
        const opened = await admitAnonymous(ctx, admission, resume, {
          filter: deliveryFilterOf(spec),
          address: request.ip,
          transport: 'stream',
          lastEventId: request.headers['last-event-id'],
          after,
        });
        if ('reason' in opened) throw admissionError(opened);
        streams.serve(reply, opened, ': public\n\n', (conn) => admission.release(conn.socketId), positionOf);
      } catch (err) {
        if (!answeredAsRetry(request, reply, err, ctx.clock.now())) throw err;
      }
    },
  );

  if (publicOnes.length === 0) return undefined;
  const askedBy = new LRUCache<string, Asked | { invalid: string }>({ max: MAX_QUERIES_HELD });
  const gate: PublicSocketGate = {
    path: PUBLIC_WEBSOCKET_PATH,
    async open(search, ipAddress) {
      let asked = askedBy.get(search);
      if (!asked) askedBy.set(search, (asked = readAsked(search, publicOnes)));
      if ('invalid' in asked) return { code: INVALID_QUERY, message: asked.invalid };
      try {
        const opened = await admitAnonymous(ctx, admission, resume, {
          ...asked,
          address: ipAddress ?? 'unknown',
          transport: 'websocket',
          lastEventId: undefined,
        });
        return 'reason' in opened ? admissionRefusal(opened) : opened;
      } catch (err) {
        // An unknown or too old resume point: its documented message.
        if (err instanceof CodedError && err.statusCode === 400)
          return { code: INVALID_QUERY, message: err.answer };
        throw err;
      }
    },
    closed: (socketId) => admission.release(socketId),
  };
  return gate;
}

/** The caps and the per-address rate of anonymous connections, from the settings. */
function publicAdmission(ctx: AppContext): PublicAdmission {
  const rate = new FailureLimiter(
    ctx.db,
    ctx.pepper,
    'public-connect',
    { limit: ctx.config.publicConnectsPerMinute, windowMs: RATE_WINDOW_MS },
    ctx.clock,
  );
  return new PublicAdmission(
    { maxConnections: ctx.config.publicMaxConnections, maxPerAddress: ctx.config.publicMaxPerAddress },
    rate,
    ctx.metrics,
    ctx.clock,
    (err) => ctx.log.warn({ err }, 'a count of new public connections not written; they stay admitted'),
  );
}

/**
 * How far back an anonymous connection resumes: the public bound, within the server's own. Any
 * client can name a telegram (or an unknown id, which a `Last-Event-ID` turns into "as far back as
 * it goes"), and each catch-up reads and sends what lies between; one that dropped for a moment
 * needs the last minutes, which the telegram cache holds (docs/realtime.md "Public streams").
 */
function publicResume(ctx: AppContext): ResumeRule {
  const { publicResumeMaxTelegrams, resumeMaxTelegrams } = ctx.config;
  return {
    maxBehind: Math.min(publicResumeMaxTelegrams, resumeMaxTelegrams),
    messages: publicResumeMessages,
  };
}

/**
 * A public stream's position: the newest telegram of a public classification up to the serial
 * handed out, not the newest of any (which would show an anonymous client the ids and times of
 * telegrams it may not read). Resuming after it is exact: whatever the stream's filter, no telegram
 * it could receive lies between it and the serial handed out. The telegram cache answers (one
 * look-up per serial handed out, for every public stream); the newest one it saw is kept when the
 * cache holds none, and the store gives it once at the start, a public telegram being maybe days old.
 */
function publicPosition(ctx: AppContext, publicOnes: readonly string[]): PositionOf {
  const query: TelegramQuery = { classifications: publicOnes, test: 'including', limit: 1 };
  let newest: { serial: number; id: string } | undefined;
  let stored: { serial: number; id: string } | undefined;
  let lookedUp = -1;
  const keep = (t: { serial: number; id: string } | undefined) => {
    if (t && (!newest || t.serial > newest.serial)) newest = { serial: t.serial, id: t.id };
  };
  void queryTelegrams(ctx.db, query)
    .then(([t]) => (stored = t))
    .catch(() => {});
  return (handedOut) => {
    if (handedOut !== lookedUp) {
      lookedUp = handedOut;
      keep(ctx.telegrams.query({ ...query, before: handedOut + 1 })?.[0]);
    }
    // Committed maybe after the serial handed out: named only once the stream may have received it.
    if (stored && stored.serial <= handedOut) keep(stored);
    return newest?.id;
  };
}

/** Admits the connection and reads its resume point: what the hub and the catch-up need. */
async function admitAnonymous(
  ctx: AppContext,
  admission: PublicAdmission,
  resume: ResumeRule,
  request: {
    filter: DeliveryFilter;
    compiled?: CompiledFilter;
    address: string;
    transport: PublicTransport;
    lastEventId: string | string[] | undefined;
    after: string | undefined;
  },
): Promise<OpenedSession | Exclude<Admission, { ok: true }>> {
  const admitted = admission.admit(request.address, request.transport);
  if (!admitted.ok) return admitted;
  try {
    return {
      socketId: admitted.socketId,
      filter: request.filter,
      compiled: request.compiled,
      appName: null,
      resumeAfter: await resumeSerial(ctx, request.lastEventId, request.after, resume),
    };
  } catch (err) {
    admission.release(admitted.socketId);
    throw err;
  }
}

/** Which data may be redistributed is the operator's licence to judge; early warnings are not JMA's public feed. */
function warnOfEarlyWarnings(ctx: AppContext, publicOnes: readonly string[]): void {
  const eew = publicOnes.filter((c) => c.startsWith('eew.'));
  ctx.log.info({ classifications: publicOnes }, 'public streams are on');
  if (eew.length > 0)
    ctx.log.warn(
      { classifications: eew },
      'early warnings are public (NAMAZU_PUBLIC_CLASSIFICATIONS): JMA does not publish them in its public feed; redistribute them only where your licence allows it',
    );
}

/** A refusal of the HTTP stream: 503 over the process's total, 429 over an address's cap or rate. */
function admissionError(refused: Exclude<Admission, { ok: true }>): HttpError {
  const headers = { 'retry-after': String(refused.retryAfterSeconds) };
  return new HttpError(refused.reason === 'total' ? 'BUSY' : 'TOO_MANY_REQUESTS', { headers });
}

/** A refusal of the public WebSocket: 4409, the close code of a full connection limit. */
function admissionRefusal(refused: Exclude<Admission, { ok: true }>): Refusal {
  return {
    code: closeCodes.connectionLimit,
    message:
      refused.reason === 'rate'
        ? `Too many new connections from this address; retry in ${refused.retryAfterSeconds} s.`
        : closeMessages.connectionLimit,
  };
}

/** The parameters the public streams read: the others are ignored, repeated or not, as on the stream. */
const READ_PARAMS = new Set(Object.keys(PublicStreamQuery.properties));

/**
 * The upgrade request's query as the stream's route has it after validation, or the documented
 * message of the first field that is wrong (of those read, only `areas` may be repeated).
 */
function queryOf(params: URLSearchParams): PublicStreamQueryValue | { invalid: string } {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    if (!READ_PARAMS.has(name)) continue;
    const values = params.getAll(name);
    if (values.length > 1 && name !== 'areas') return { invalid: catalogueMessage('UNEXPECTED_QUERY', name) };
    query[name] = values.length > 1 ? values : values[0]!;
  }
  if (checkQuery.Check(query)) return query;
  const field = [...checkQuery.Errors(query)][0]?.instancePath.split('/')[1] ?? '';
  const message = (streamMessages as Record<string, string>)[field];
  return { invalid: message ?? catalogueMessage('UNEXPECTED_QUERY', field) };
}

/** What a public WebSocket asks for, read from its query string. */
interface Asked {
  filter: DeliveryFilter;
  compiled: CompiledFilter;
  after: string | undefined;
}

/**
 * Reads a public WebSocket's query string, or the documented message of what is wrong with it. The
 * clients of one app send the same string, so the gate keeps what it read of the last
 * `MAX_QUERIES_HELD` (a compiled filter is shared by the connections that asked for it anyway).
 */
function readAsked(search: string, publicOnes: readonly string[]): Asked | { invalid: string } {
  const query = queryOf(new URLSearchParams(search));
  if ('invalid' in query) return query;
  const spec = publicStreamSpec(query, publicOnes);
  if ('invalid' in spec) return spec;
  const filter = deliveryFilterOf(spec);
  return { filter, compiled: compileFilter(filter), after: query.after };
}
