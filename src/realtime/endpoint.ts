/**
 * The WebSocket endpoint `{websocket_url}/v2/websocket?ticket=…` (and the public WebSocket) on the
 * app's HTTP server: the routing of upgrade requests. The handshake of an upgrade to one of its
 * paths always completes (so that a refusal can carry its close code) and the connection is
 * welcomed (welcome.ts); any other upgrade (another path or protocol), or one during shutdown, is
 * answered by the app as the ordinary request it also is.
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { WEBSOCKET_PATH } from '../sessions/socket-sessions.ts';
import type { PublicSocketGate, SessionGate } from './gate.ts';
import { chooseSubprotocol } from './protocol.ts';
import { welcome, welcomeTicket, type WelcomeOptions } from './welcome.ts';

export interface EndpointOptions extends Omit<WelcomeOptions, 'accepting'> {
  gate: SessionGate;
  /**
   * How long a peer has to finish a closing handshake, whoever began it, before its socket is
   * destroyed: one that does not read, or whose network is gone, holds nothing longer (ws's own
   * default is 30 s).
   */
  closeGraceMs: number;
  /** Largest client frame accepted (clients only send ping and pong). */
  maxClientMessageBytes: number;
  /** The client address of a request, by the app's rule (http/client-address.ts). */
  clientAddress: (req: IncomingMessage) => string | null;
  /** Answers an upgrade this endpoint does not take as an HTTP request (see `answerAsRequest`). */
  passOn: (req: IncomingMessage, socket: Duplex) => void;
  /** The public WebSocket, when public streams are on. */
  publicSocket?: PublicSocketGate;
}

export interface WebSocketEndpoint {
  /** Closes every connection with `code` (4503 on shutdown) and stops accepting new ones. */
  close(code: number, message: string): void;
}

export function attachWebSocketEndpoint(server: Server, options: EndpointOptions): WebSocketEndpoint {
  const { hub, gate, publicSocket } = options;
  let accepting = true;
  const welcoming: WelcomeOptions = { ...options, accepting: () => accepting };
  // ws 8.23 takes `closeTimeout`; its types (@types/ws 8.18) do not know it yet.
  const closing = { closeTimeout: options.closeGraceMs };
  const wss = new WebSocketServer({
    ...closing,
    noServer: true,
    perMessageDeflate: false,
    clientTracking: false,
    maxPayload: options.maxClientMessageBytes,
    handleProtocols: (offered) => chooseSubprotocol(offered),
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's parser lets through targets that are no URL (`//[`): those are the app's to refuse.
    const target = req.url ?? '/';
    if (!URL.canParse(target, 'http://localhost')) return options.passOn(req, socket);
    const url = new URL(target, 'http://localhost');
    const isPublic = publicSocket !== undefined && url.pathname === publicSocket.path;
    // Another protocol (`Upgrade: h2c`) is the app's too: it answers 426, as to a request without any.
    const ours = (url.pathname === WEBSOCKET_PATH || isPublic) && isWebSocketUpgrade(req);
    if (!ours || !accepting) return options.passOn(req, socket);
    const ip = options.clientAddress(req);
    // The handshake's answer and the first message (`start`, or the refusal) leave in one write:
    // in a storm of connections a write per socket is a good share of what each costs, on both
    // sides. A handshake refused by ws ends the socket, which uncorks it.
    socket.cork();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const welcomed = isPublic
        ? welcome(ws, () => publicSocket.open(url.search, ip), publicSocket, welcoming)
        : welcomeTicket(ws, url.searchParams.get('ticket'), gate, ip, welcoming);
      void welcomed.finally(() => socket.uncork());
    });
  });

  return {
    close(code, message) {
      accepting = false;
      for (const conn of [...hub.connections()]) conn.fail(code, message, true);
    },
  };
}

/** Whether the request's `Upgrade` asks for a WebSocket (it may list other protocols beside it). */
const isWebSocketUpgrade = (req: IncomingMessage) =>
  (req.headers.upgrade ?? '').split(',').some((p) => p.trim().toLowerCase() === 'websocket');

/**
 * An upgrade the endpoint does not take (another path, or shutting down) is answered by `handle`
 * (the app's routing) as the request it also is: 404 in the app's format, 503 while the app closes,
 * the route's answer for a path the app serves. This is how @fastify/websocket hands upgrades to
 * Fastify; the accepted ones above stay off the router so that connecting costs no more. The
 * connection closes after the answer: the HTTP parser left the socket when it became an upgrade.
 */
export function answerAsRequest(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    // The server took its own error handler off the upgraded socket.
    socket.on('error', () => socket.destroy());
    // Nor does it read the socket any more, nor end it when the client ends its side, as it does for
    // its own requests: an answer that lasts (a stream) would hold its slot after the client left,
    // until one of its writes failed. What the client sends now is dropped; its end ends ours.
    socket.on('end', () => socket.end());
    socket.resume();
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    handle(req, res);
  };
}
