/**
 * The WebSocket endpoint `{websocket_url}/v2/websocket?ticket=…` on the app's HTTP server. The
 * handshake always completes (so a refusal can carry its close code); the ticket is then redeemed
 * through the session gate, `start` is sent, and the connection joins the hub.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { Clock } from '../clock.ts';
import { WEBSOCKET_PATH } from '../sessions/socket-sessions.ts';
import type { CatchUp } from './catch-up.ts';
import { Connection } from './connection.ts';
import type { DeliveryFilter } from './filter.ts';
import { formatsOf } from '../sessions/socket-sessions.ts';
import { compileFilter } from './filter.ts';
import type { Heartbeat } from './heartbeat.ts';
import type { Hub } from './hub.ts';
import {
  chooseSubprotocol,
  closeCodes,
  closeMessages,
  errorMessage,
  parseClientMessage,
  pongMessage,
  startMessage,
} from './protocol.ts';

/** The session a valid ticket opens. */
export interface OpenedSession {
  socketId: number;
  filter: DeliveryFilter;
  appName: string | null;
  /** The serial the connection catches up from before it goes live (docs/realtime.md "Resume"). */
  resumeAfter?: number | null;
}

/** A refused ticket: the close code (4404, 4409, 4807, …) and its message. */
export interface Refusal {
  code: number;
  message: string;
}

/** What the endpoint needs from the session store. */
export interface SessionGate {
  /** Redeems a ticket (single-use: a failed attempt uses it too) and marks the session open. */
  open(ticket: string, ipAddress: string | null): Promise<OpenedSession | Refusal>;
  /**
   * The connection of an opened session ended, for whatever reason (`code`: the close code; null
   * when a stream's client went away).
   */
  closed(socketId: number, code: number | null): void;
}

/**
 * The public WebSocket (docs/realtime.md "Public streams"): connections opened from the query of
 * the upgrade request, without a ticket.
 */
export interface PublicSocketGate {
  readonly path: string;
  /** Admits an anonymous connection (caps, rate) and reads what it asks for from `query`. */
  open(query: URLSearchParams, ipAddress: string | null): Promise<OpenedSession | Refusal>;
  /** The connection of an opened anonymous socket ended. */
  closed(socketId: number): void;
}

export interface EndpointOptions {
  hub: Hub;
  heartbeat: Heartbeat;
  gate: SessionGate;
  clock: Clock;
  /** Bytes a socket may have queued before it is dropped as a slow consumer. */
  maxBufferedBytes: number;
  /** Largest client frame accepted (clients only send ping and pong). */
  maxClientMessageBytes: number;
  /** How long a peer has to answer the server's close frame before its socket is destroyed. */
  closeGraceMs: number;
  /** Client address of a request (honours a trusted proxy's header when configured). */
  clientIp?: (req: IncomingMessage) => string | null;
  /** Reports unexpected failures (logging); the connection is closed with 4503 either way. */
  onError?: (err: unknown) => void;
  /** Runs the catch-up of a session that resumes (`resumeAfter`). */
  catchUp?: CatchUp;
  /** The public WebSocket, when public streams are on. */
  publicSocket?: PublicSocketGate;
}

export interface WebSocketEndpoint {
  /** Closes every connection with `code` (4503 on shutdown) and stops accepting new ones. */
  close(code: number, message: string): void;
}

const TEXT = { binary: false } as const;
/** Client frames that are not a JSON object tolerated before the connection closes with 4641. */
export const MAX_INVALID_FRAMES = 5;

const ignore = () => {};

function refuse(ws: WebSocket, code: number, message: string): void {
  ws.send(errorMessage(message, code, true), TEXT);
  ws.close(code, message);
}

export function attachWebSocketEndpoint(server: Server, options: EndpointOptions): WebSocketEndpoint {
  const { hub, heartbeat, gate, clock } = options;
  let accepting = true;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    clientTracking: false,
    maxPayload: options.maxClientMessageBytes,
    handleProtocols: (offered) => chooseSubprotocol(offered),
  });

  const { publicSocket } = options;
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const isPublic = publicSocket !== undefined && url.pathname === publicSocket.path;
    if ((url.pathname !== WEBSOCKET_PATH && !isPublic) || !accepting) {
      socket.end(
        `HTTP/1.1 ${accepting ? '404 Not Found' : '503 Service Unavailable'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    const ip = options.clientIp?.(req) ?? req.socket.remoteAddress ?? null;
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (isPublic)
        void welcome(
          ws,
          () => publicSocket.open(url.searchParams, ip),
          (id) => publicSocket.closed(id),
        );
      else void welcomeTicket(ws, url.searchParams.get('ticket'), ip);
    });
  };
  server.on('upgrade', onUpgrade);

  function welcomeTicket(ws: WebSocket, ticket: string | null, ip: string | null): Promise<void> {
    if (!ticket) {
      ws.on('error', ignore);
      refuse(ws, closeCodes.missingTicket, closeMessages.missingTicket);
      return Promise.resolve();
    }
    return welcome(
      ws,
      () => gate.open(ticket, ip),
      (id, code) => gate.closed(id, code),
    );
  }

  /** Opens the connection (`open`: a ticket's session, or an anonymous one); `closed` runs once it ends. */
  async function welcome(
    ws: WebSocket,
    open: () => Promise<OpenedSession | Refusal>,
    closed: (socketId: number, code: number | null) => void,
  ): Promise<void> {
    ws.on('error', ignore); // a reset socket also emits 'close', where cleanup happens
    let opened: OpenedSession | Refusal;
    try {
      opened = await open();
    } catch (err) {
      options.onError?.(err);
      return refuse(ws, closeCodes.serverRestart, closeMessages.internalError);
    }
    if ('code' in opened) return refuse(ws, opened.code, opened.message);
    if (ws.readyState !== 1 || !accepting) {
      if (ws.readyState === 1) refuse(ws, closeCodes.serverRestart, closeMessages.serverRestart);
      closed(opened.socketId, closeCodes.serverRestart);
      return;
    }
    const conn = new Connection(
      ws,
      opened.socketId,
      compileFilter(opened.filter),
      clock.now(),
      options.maxBufferedBytes,
      options.closeGraceMs,
    );
    ws.send(
      startMessage(
        {
          socketId: opened.socketId,
          classifications: opened.filter.classifications,
          types: opened.filter.types,
          test: opened.filter.test,
          formats: formatsOf(opened.filter.formatMode),
          appName: opened.appName,
        },
        clock.now(),
      ),
      TEXT,
    );
    const resumeAfter = opened.resumeAfter ?? null;
    if (resumeAfter === null || !options.catchUp) hub.add(conn);
    else void options.catchUp.start(conn, resumeAfter);
    ws.on('message', (data, isBinary) => {
      if (conn.closing) return;
      const msg = parseClientMessage(isBinary ? '' : data.toString());
      if (msg.type === 'ping') conn.send(pongMessage(msg.pingId));
      else if (msg.type === 'pong') heartbeat.pong(conn, msg.pingId);
      else if (msg.type === 'invalid')
        conn.fail(closeCodes.notJson, closeMessages.notJson, ++conn.invalidFrames >= MAX_INVALID_FRAMES);
    });
    ws.on('close', (code) => {
      hub.remove(conn);
      closed(conn.socketId, code);
    });
  }

  return {
    close(code, message) {
      accepting = false;
      for (const conn of [...hub.connections()]) conn.fail(code, message, true);
    },
  };
}
