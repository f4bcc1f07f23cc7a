/**
 * Writes a pre-built frame straight to a `ws` socket. `ws` has no public API for this, so this is
 * the one module that reads its internals (ws 8: `_socket`, the net.Socket, and `_sender`, whose
 * `_state` is 0 when idle and whose `_queue` holds frames waiting behind a compression or a Blob).
 * test/realtime/raw-write.test.ts fails if a `ws` upgrade changes them.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

interface WsInternals {
  _socket: Socket | null;
  _sender: { _state: number; _queue: unknown[] } | null;
}

const IDLE = 0;

/** The TCP socket under `ws` (null once it is gone): the catch-up waits for its `drain`. */
export function rawSocketOf(ws: WebSocket): Socket | null {
  return (ws as unknown as WsInternals)._socket;
}

/**
 * Writes `frame` to the socket when `ws`'s sender is idle (so frames never interleave) and returns
 * true; returns false when the caller must use `ws.send` instead.
 */
export function writeFrame(ws: WebSocket, frame: Buffer): boolean {
  const { _socket: socket, _sender: sender } = ws as unknown as WsInternals;
  if (!socket || !sender || sender._state !== IDLE || sender._queue.length > 0) return false;
  socket.write(frame);
  return true;
}
