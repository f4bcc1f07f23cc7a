/**
 * The real-time delivery of one process, wired to the app: the hub and its dispatcher, the session
 * gate and upkeep, the WebSocket endpoint on the app's HTTP server and the streams of server-sent
 * events, and what wakes them (wake-ups.ts). Each job is a module of its own; this file puts them
 * together and closes every connection with 4503 when the app closes.
 */
import { processServerName, type AppContext } from '../context.ts';
import { clientAddress } from '../http/client-address.ts';
import { onLocalSocketClose } from '../http/local-sockets.ts';
import { onStop } from '../http/stop.ts';
import type { App, Surface } from '../http/surface.ts';
import { endSessions, sessionStore, WEBSOCKET_PATH } from '../sessions/socket-sessions.ts';
import { CatchUp } from './catch-up.ts';
import { ContractChanges, narrowToContracts } from './contract-change.ts';
import { CutOffTracker } from './cut-off.ts';
import { Dispatcher } from './dispatcher.ts';
import { answerAsRequest, attachWebSocketEndpoint, type WebSocketEndpoint } from './endpoint.ts';
import { Hub } from './hub.ts';
import { Liveness } from './liveness.ts';
import { closeCodes, closeMessages } from './protocol.ts';
import { registerPublicStreams } from './public-stream.ts';
import { sessionIds } from './session-ids.ts';
import { registerStream, type Streams } from './stream.ts';
import { TicketGate } from './ticket-gate.ts';
import { registerUpgradeRequired } from './upgrade-required.ts';
import { SessionUpkeep } from './upkeep.ts';
import { listenForWakeUps } from './wake-ups.ts';

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
 * The real-time surface: telegrams come from the process's telegram cache, else the database.
 * Its connections close and their sessions are recorded before the app closes (`preClose`): the
 * database is still open, and the HTTP server then waits for no stream.
 */
export const registerRealtime: Surface = async (app, ctx) => {
  onStop(app, 'preClose', await startRealtime(app, ctx));
};

async function startRealtime(app: App, ctx: AppContext): Promise<() => Promise<void>> {
  const { db, clock, log, metrics, config } = ctx;
  const store = sessionStore(ctx.db, ctx.pepper, config.pingIntervalMs);
  const server = processServerName(ctx);
  const onError = (err: unknown) => log.error({ err }, 'real-time delivery failed');
  const hub = new Hub({ chunkSize: CHUNK_SIZE });
  const closeByAccount = (socketId: number) =>
    hub.get(socketId)?.fail(closeCodes.closedByAccount, closeMessages.closedByAccount, true);
  // A DELETE on this process closes at once; one on another process tells us on the bus.
  onLocalSocketClose(app, closeByAccount);
  const cutOff = new CutOffTracker(db, hub, onError);
  const contractChanges = new ContractChanges();
  // Told by the bus, or found by the upkeep when the bus did not tell.
  const contractsChanged = (accountId: number) => {
    contractChanges.changed(accountId);
    narrowToContracts(db, hub, accountId).catch(onError);
  };
  const upkeep = new SessionUpkeep({
    db,
    hub,
    clock,
    cutOff,
    closeByAccount,
    contractsChanged,
    onError,
    pingIntervalMs: config.pingIntervalMs,
  });
  const liveness = new Liveness(db, hub, onError, () => upkeep.recheckLimits());
  const gate = new TicketGate({
    db,
    contractChanges,
    store,
    clock,
    metrics,
    server,
    cutOff,
    onError,
    processId: liveness.processId,
  });

  // Announcements follow COMMIT, so this is the time from commit to the write to the last socket.
  const dispatcher = new Dispatcher(hub, ctx.telegrams, clock, server, onError, (record, seconds) =>
    metrics.deliveryLatency.observe({ classification: record.classification }, seconds),
  );
  const catchUp = new CatchUp(hub, dispatcher, ctx.telegrams, clock, server, onError);
  // On top of the bound, one message of the largest telegram (base64 or escaped text: at most twice
  // its bytes) may be queued whole, so that the message sent after it does not drop a client that
  // reads at the speed of its link (docs/telegrams.md "Size").
  const maxBufferedBytes = MAX_BUFFERED_BYTES + 2 * config.maxTelegramBytes;
  const closeGraceMs = CLOSE_GRACE_MS;
  const streams = registerStream(app, ctx, { hub, gate, catchUp, store, maxBufferedBytes, closeGraceMs });
  const publicSocket = registerPublicStreams(app, ctx, streams);
  const webSocketPaths = publicSocket ? [WEBSOCKET_PATH, publicSocket.path] : [WEBSOCKET_PATH];
  registerUpgradeRequired(app, webSocketPaths, ctx.stopping);
  const endpoint = attachWebSocketEndpoint(app.server, {
    hub,
    heartbeat: upkeep.heartbeat,
    gate,
    clock,
    onError,
    catchUp,
    maxBufferedBytes,
    closeGraceMs,
    maxClientMessageBytes: MAX_CLIENT_MESSAGE_BYTES,
    clientAddress: (req) => clientAddress(req, config.trustProxy),
    passOn: answerAsRequest((req, res) => app.routing(req, res)),
    publicSocket,
  });

  upkeep.start();
  await liveness.start();
  // Position first, then listen: anything committed in between is read at the first wake-up.
  await dispatcher.start();
  const stopListening = await listenForWakeUps(ctx.bus, {
    dispatcher,
    source: ctx.telegrams,
    cutOff,
    closeByAccount,
    contractsChanged,
  });
  return async () => {
    upkeep.stop();
    await stopListening();
    await closeConnections(ctx, hub, streams, endpoint);
    await liveness.stop();
  };
}

/**
 * Shutdown: every connection is closed with 4503 and has a second to answer; those that have not
 * are cut off. Their sessions are recorded here in one statement, before the database closes
 * (their close handlers may come later).
 */
async function closeConnections(
  { db, clock }: Pick<AppContext, 'db' | 'clock'>,
  hub: Hub,
  streams: Streams,
  endpoint: WebSocketEndpoint,
): Promise<void> {
  const held = sessionIds(hub.connections());
  streams.close();
  endpoint.close(closeCodes.serverRestart, closeMessages.serverRestart);
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([
    hub.emptied(),
    new Promise((resolve) => (grace = setTimeout(resolve, SHUTDOWN_GRACE_MS))),
  ]);
  clearTimeout(grace);
  for (const conn of hub.connections()) conn.terminate();
  await endSessions(db, held, clock.now(), closeCodes.serverRestart);
}
