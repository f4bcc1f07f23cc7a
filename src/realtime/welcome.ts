/**
 * The welcome of one WebSocket connection once its handshake completed: the ticket (or the public
 * query) is redeemed through its gate, `start` is sent and the connection joins the hub (after its
 * catch-up when it resumes); then its client frames are answered (ping, pong). A refusal is an
 * `error` message and a close with its code, so the client learns why.
 */
import type { WebSocket } from 'ws';
import type { Clock } from '../clock.ts';
import { formatsOf } from '../sessions/socket-sessions.ts';
import type { CatchUp } from './catch-up.ts';
import { Connection, type ClosingListener } from './connection.ts';
import { compileFilter } from './filter.ts';
import type { OpenedSession, Refusal, SessionGate } from './gate.ts';
import type { Heartbeat } from './heartbeat.ts';
import type { Hub } from './hub.ts';
import {
  closeCodes,
  closeMessages,
  errorMessage,
  parseClientMessage,
  pongMessage,
  startMessage,
} from './protocol.ts';

/** Client frames that are not a JSON object tolerated before the connection closes with 4641. */
export const MAX_INVALID_FRAMES = 5;

const TEXT = { binary: false } as const;
const ignore = () => {};

export interface WelcomeOptions {
  hub: Hub;
  heartbeat: Heartbeat;
  clock: Clock;
  /** Bytes a socket may have queued before it is dropped as a slow consumer. */
  maxBufferedBytes: number;
  /** Reports unexpected failures (logging); the connection is closed with 4503 either way. */
  onError?: (err: unknown) => void;
  /** Runs the catch-up of a session that resumes (`resumeAfter`). */
  catchUp?: CatchUp;
  /** False once the endpoint closed (shutdown): a session opened meanwhile is closed with 4503. */
  accepting(): boolean;
}

/** Sends the refusal and closes (a peer that does not answer is cut off after the close grace). */
function refuse(ws: WebSocket, code: number, message: string): void {
  ws.send(errorMessage(message, code, true), TEXT);
  ws.close(code, message);
}

/** Welcomes a connection of `/v2/websocket`: its ticket opens the session, or it is refused (4400). */
export function welcomeTicket(
  ws: WebSocket,
  ticket: string | null,
  gate: SessionGate,
  ip: string | null,
  options: WelcomeOptions,
): Promise<void> {
  if (!ticket) {
    ws.on('error', ignore);
    refuse(ws, closeCodes.missingTicket, closeMessages.missingTicket);
    return Promise.resolve();
  }
  return welcome(ws, () => gate.open(ticket, ip), gate, options);
}

/** Told once an opened connection ended (a gate); and, first, when the server closes it. */
export interface ClosedListener extends ClosingListener {
  closed(socketId: number, code: number | null): void;
}

/**
 * Opens the connection (`open`: a ticket's session, or an anonymous one); `gate.closed` runs once it
 * ends. The gate is passed itself rather than in a closure: what an open connection's close handler
 * holds lives as long as the connection, and a closure made here or by the caller would keep the
 * caller's scope (the ticket, the request's URL) with it.
 */
export async function welcome(
  ws: WebSocket,
  open: () => Promise<OpenedSession | Refusal>,
  gate: ClosedListener,
  options: WelcomeOptions,
): Promise<void> {
  ws.on('error', ignore); // a reset socket also emits 'close', where cleanup happens
  // What the client sends while its ticket is redeemed (a ping right after the handshake) waits in
  // the socket until the handlers below are attached: nothing would answer it yet. Reading resumes
  // on a later tick, after this one has attached them.
  ws.pause();
  let opened: OpenedSession | Refusal;
  try {
    opened = await open();
  } catch (err) {
    options.onError?.(err);
    return refuse(ws, closeCodes.serverRestart, closeMessages.internalError);
  } finally {
    ws.resume();
  }
  if ('code' in opened) return refuse(ws, opened.code, opened.message);
  if (ws.readyState !== 1 || !options.accepting()) {
    if (ws.readyState === 1) refuse(ws, closeCodes.serverRestart, closeMessages.serverRestart);
    gate.closed(opened.socketId, closeCodes.serverRestart);
    return;
  }
  const conn = start(ws, opened, gate, options);
  answerClientFrames(conn, options.heartbeat);
  ws.on('close', (code) => {
    options.hub.remove(conn);
    gate.closed(conn.socketId, code);
  });
}

/** Sends `start` and hands the connection to the hub, or to its catch-up when it resumes. */
function start(
  ws: WebSocket,
  opened: OpenedSession,
  gate: ClosedListener,
  options: WelcomeOptions,
): Connection {
  const { clock, hub, catchUp } = options;
  const { socketId, filter, appName } = opened;
  const conn = new Connection(
    ws,
    socketId,
    opened.compiled ?? compileFilter(filter),
    clock.now(),
    options.maxBufferedBytes,
    gate,
  );
  const { classifications, types, test, formatMode } = filter;
  const info = { socketId, classifications, types, test, formats: formatsOf(formatMode), appName };
  ws.send(startMessage(info, clock.now()), TEXT);
  const resumeAfter = opened.resumeAfter ?? null;
  if (resumeAfter === null || !catchUp) hub.add(conn);
  else void catchUp.start(conn, resumeAfter);
  return conn;
}

/** Clients send ping (answered with pong) and pong (for the server's ping); anything else is invalid. */
function answerClientFrames(conn: Connection, heartbeat: Heartbeat): void {
  conn.ws.on('message', (data, isBinary) => {
    if (conn.closing) return;
    const msg = parseClientMessage(isBinary ? '' : data.toString());
    if (msg.type === 'ping') conn.send(pongMessage(msg.pingId));
    else if (msg.type === 'pong') heartbeat.pong(conn, msg.pingId);
    else if (msg.type === 'invalid')
      conn.fail(closeCodes.notJson, closeMessages.notJson, ++conn.invalidFrames >= MAX_INVALID_FRAMES);
  });
}
