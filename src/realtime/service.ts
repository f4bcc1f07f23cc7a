/**
 * The real-time delivery of one process, wired to the app: the WebSocket endpoint on the app's
 * HTTP server, the hub, the heartbeat, and the bus subscriptions (new telegrams, sessions closed
 * by their account, contract changes). Shutdown closes every connection with 4503.
 */
import cluster from 'node:cluster';
import { busCodecs } from '../bus/codecs.ts';
import type { AppContext } from '../context.ts';
import { onLocalSocketClose } from '../http/local-sockets.ts';
import type { App, Surface } from '../http/surface.ts';
import type { SessionStoreOptions } from '../sessions/socket-sessions.ts';
import {
  PONG_TIMEOUT_MS,
  closedByAccount,
  cutOffSessions,
  endSessions,
  narrowSession,
  openSession,
  openSessionsOf,
  recordPings,
  sessionStoreOptions,
} from '../sessions/socket-sessions.ts';
import type { TelegramCache } from '../telegrams/cache.ts';
import { CatchUp } from './catch-up.ts';
import { Dispatcher } from './dispatcher.ts';
import type { Refusal, SessionGate } from './endpoint.ts';
import { attachWebSocketEndpoint } from './endpoint.ts';
import { compileFilter } from './filter.ts';
import { Heartbeat } from './heartbeat.ts';
import { Hub } from './hub.ts';
import { closeCodes, closeMessages } from './protocol.ts';
import { registerPublicStreams } from './public-stream.ts';
import { registerStream } from './stream.ts';
import type { Subscriber } from './subscriber.ts';

/** Sockets written per event-loop turn before yielding (see bench/fanout). */
const CHUNK_SIZE = 512;
/** Bytes queued on one socket before it is dropped as a slow consumer (a dozen big telegrams). */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** Clients only send ping and pong. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;
/** How long a client has to answer a close frame (4641, 4503…) before its socket is destroyed. */
export const CLOSE_GRACE_MS = 5000;
/** How long shutdown waits for clients to answer the 4503 close before cutting them off. */
const SHUTDOWN_GRACE_MS = 1000;
/**
 * The delivery also looks at the store this often without an announcement, so a lost announcement
 * or a bus outage delays a telegram by at most about this much (docs/realtime.md).
 */
const HEAL_INTERVAL_MS = 1000;

const refusals: Record<'unknown' | 'full' | 'no-contract', Refusal> = {
  unknown: { code: closeCodes.unknownTicket, message: closeMessages.unknownTicket },
  full: { code: closeCodes.connectionLimit, message: closeMessages.connectionLimit },
  'no-contract': { code: closeCodes.contractEnded, message: closeMessages.contractEnded },
};

/** The real-time surface: telegrams come from the process's telegram cache, else the database. */
export const registerRealtime: Surface = async (app, ctx) => {
  await startRealtime(app, ctx, ctx.telegrams, sessionStoreOptions(ctx.pepper, ctx.config.pingIntervalMs));
};

async function startRealtime(app: App, ctx: AppContext, source: TelegramCache, store: SessionStoreOptions) {
  const { db, clock, log, metrics } = ctx;
  // Workers of one host tell themselves apart in the session list and in `passing`.
  const server = cluster.isWorker ? `${ctx.config.serverName}#${cluster.worker!.id}` : ctx.config.serverName;
  const hub = new Hub({ chunkSize: CHUNK_SIZE });
  const ponged = new Set<number>();
  const heartbeat = new Heartbeat(
    hub,
    clock,
    { intervalMs: ctx.config.pingIntervalMs, timeoutMs: PONG_TIMEOUT_MS },
    // Anonymous connections (negative ids, public-admission.ts) have no session to record pings in.
    (conn) => {
      if (conn.socketId > 0) ponged.add(conn.socketId);
    },
  );
  const onError = (err: unknown) => log.error({ err }, 'real-time delivery failed');

  const closeByAccount = (socketId: number) =>
    hub.get(socketId)?.fail(closeCodes.closedByAccount, closeMessages.closedByAccount, true);
  // A DELETE on this process closes at once; one on another process tells us on the bus.
  onLocalSocketClose(app, closeByAccount);

  // Cut off (docs/realtime.md "Cut off"): the connections whose credential was revoked or whose
  // account was disabled close with 4808. Every revocation is announced on the bus after its
  // commit: a connection opened with the announced digest closes at once, and the store is asked
  // which of this process's connections are cut off (a revoked authorization whose tokens were
  // renewed since); the heartbeat asks again in case an announcement was missed.
  const cutOff = (socketId: number) =>
    hub.get(socketId)?.fail(closeCodes.closedByAccount, closeMessages.cutOff, true);
  const byCredential = new Map<string, Set<number>>();
  const credentialOf = new Map<number, string>();
  let checking = false;
  let checkAgain = false;
  const checkCutOff = () => {
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    cutOffSessions(db, [...credentialOf.keys()])
      .then((ids) => ids.forEach(cutOff))
      .catch(onError)
      .finally(() => {
        checking = false;
        if (checkAgain) {
          checkAgain = false;
          checkCutOff();
        }
      });
  };
  const revoked = (digest: string) => {
    for (const socketId of byCredential.get(digest) ?? []) cutOff(socketId);
    checkCutOff();
  };

  // One timer: ping everyone, record the pongs of the last period in one statement, and close the
  // connections whose session was closed by its account while the bus did not tell us.
  const timer = setInterval(() => {
    heartbeat.tick();
    const ids = [...ponged];
    ponged.clear();
    recordPings(db, ids, clock.now()).catch(onError);
    const held = sessionIds(hub.connections());
    closedByAccount(db, held)
      .then((closed) => closed.forEach(closeByAccount))
      .catch(onError);
    checkCutOff();
  }, ctx.config.pingIntervalMs);
  timer.unref();

  const gate: SessionGate = {
    async open(ticket, ipAddress) {
      const opened = await openSession(db, store, ticket, { ipAddress, server, now: clock.now() });
      if (!opened.ok) return refusals[opened.reason];
      metrics.openWebSockets.inc();
      const s = opened.session;
      if (s.credentialDigest !== null) {
        credentialOf.set(s.id, s.credentialDigest);
        const ids = byCredential.get(s.credentialDigest) ?? new Set<number>();
        byCredential.set(s.credentialDigest, ids.add(s.id));
      }
      return {
        socketId: s.id,
        filter: {
          classifications: s.classifications,
          types: s.types,
          test: s.test,
          formatMode: s.formatMode,
          areas: s.areas ?? null,
          minIntensity: s.minIntensity ?? null,
        },
        appName: s.appName,
        resumeAfter: s.resumeAfter ?? null,
      };
    },
    closed(socketId, code) {
      metrics.openWebSockets.dec();
      const digest = credentialOf.get(socketId);
      if (digest !== undefined) {
        credentialOf.delete(socketId);
        const ids = byCredential.get(digest)!;
        ids.delete(socketId);
        if (ids.size === 0) byCredential.delete(digest);
      }
      endSessions(db, [socketId], clock.now(), code).catch(onError);
    },
  };

  // Announcements follow COMMIT, so this is the time from commit to the write to the last socket.
  const dispatcher = new Dispatcher(hub, source, clock, server, onError, (record, seconds) =>
    metrics.deliveryLatency.observe({ classification: record.classification }, seconds),
  );
  const catchUp = new CatchUp(hub, dispatcher, source, clock, server, onError);
  // On top of the bound, one message of the largest telegram (base64 or escaped text: at most twice
  // its bytes) may be queued whole, so that the message sent after it does not drop a client that
  // reads at the speed of its link (docs/telegrams.md "Size").
  const maxBufferedBytes = MAX_BUFFERED_BYTES + 2 * ctx.config.maxTelegramBytes;

  const streams = registerStream(app, ctx, {
    hub,
    gate,
    catchUp,
    store,
    maxBufferedBytes,
    closeGraceMs: CLOSE_GRACE_MS,
  });
  const publicSocket = registerPublicStreams(app, ctx, streams);
  const endpoint = attachWebSocketEndpoint(app.server, {
    hub,
    heartbeat,
    gate,
    clock,
    maxBufferedBytes,
    maxClientMessageBytes: MAX_CLIENT_MESSAGE_BYTES,
    closeGraceMs: CLOSE_GRACE_MS,
    clientIp: ctx.config.trustProxy
      ? (req) => forwardedFor(req.headers['x-forwarded-for']) ?? req.socket.remoteAddress ?? null
      : undefined,
    onError,
    catchUp,
    publicSocket,
  });
  // Position first, then listen: anything committed in between is read at the first wake-up.
  await dispatcher.start();
  const healing = setInterval(() => dispatcher.wake(), HEAL_INTERVAL_MS);
  healing.unref();
  // A commit of this process wakes the delivery as soon as the cache holds it, not after the bus.
  const stopCommitted = source.onCommitted((serial) => dispatcher.wake(serial));

  /** A contract ended: live sessions lose its classification; those left with none close (4807). */
  async function contractsChanged(accountId: number) {
    const { sessions, contracted } = await openSessionsOf(db, accountId);
    for (const s of sessions) {
      const conn = hub.get(s.id);
      if (!conn) continue;
      const kept = conn.filter.filter.classifications.filter((c) => contracted.has(c));
      if (kept.length === 0) conn.fail(closeCodes.contractEnded, closeMessages.contractEnded, true);
      else if (kept.length < conn.filter.filter.classifications.length) {
        hub.refilter(conn, compileFilter({ ...conn.filter.filter, classifications: kept }));
        await narrowSession(db, s.id, kept);
      }
    }
  }

  const unsubscribe = [
    await busCodecs.telegram.subscribe(ctx.bus, dispatcher.announce),
    await busCodecs.socketClose.subscribe(ctx.bus, ({ socketId }) => closeByAccount(socketId)),
    await busCodecs.revoked.subscribe(ctx.bus, ({ digest }) => revoked(digest)),
    await busCodecs.contracts.subscribe(ctx.bus, ({ accountId }) => {
      contractsChanged(accountId).catch(onError);
    }),
  ];

  ctx.onShutdown.push(async () => {
    clearInterval(timer);
    clearInterval(healing);
    stopCommitted();
    for (const off of unsubscribe) await off();
    const held = sessionIds(hub.connections());
    streams.close();
    endpoint.close(closeCodes.serverRestart, closeMessages.serverRestart);
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    while (hub.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const conn of hub.connections()) conn.terminate();
    // Recorded here in one statement, before the database closes (close handlers may come later).
    await endSessions(db, held, clock.now(), closeCodes.serverRestart);
  });
}

/** The ids of the connections that are sessions (an anonymous public connection's is negative). */
function sessionIds(connections: Iterable<Subscriber>): number[] {
  const ids: number[] = [];
  for (const conn of connections) if (conn.socketId > 0) ids.push(conn.socketId);
  return ids;
}

function forwardedFor(header: string | string[] | undefined): string | null {
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
  return first ? first : null;
}
