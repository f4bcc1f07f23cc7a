import type { Socket } from 'node:net';
import type { App } from './surface.ts';

/** How long a connection opened during a stop may stay silent. */
const SILENT_DURING_STOP_MS = 1000;

/**
 * At a stop, the connections that have sent nothing yet (a browser's speculative one, a pool's
 * spare) are closed: no request is under way on them, yet the HTTP server's `close()` would wait for
 * them until the idle time-out, past the stop's grace (docs/operations.md "Stopping"). Node lists no
 * connections, so each is kept in a set while it is open. The root's `preClose` hooks run before the
 * surfaces' (docs/architecture.md "Stopping"): one opened while those run gets a second to speak.
 */
export function closeSilentConnectionsAtStop(app: App): void {
  const open = new Set<Socket>();
  let stopping = false;
  // One function for all: a closure per connection would cost every held connection its bytes.
  function forget(this: Socket) {
    open.delete(this);
  }
  const closeIfSilent = (socket: Socket) => {
    if (socket.bytesRead === 0) socket.destroy();
  };
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', forget);
    if (stopping) setTimeout(closeIfSilent, SILENT_DURING_STOP_MS, socket).unref();
  });
  app.addHook('preClose', (done) => {
    stopping = true;
    for (const socket of open) closeIfSilent(socket);
    done();
  });
}
