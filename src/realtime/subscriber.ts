/**
 * What the hub, the heartbeat and the catch-up need of one connection, whatever carries it: a
 * WebSocket (`connection.ts`) or a stream of server-sent events (`sse-connection.ts`).
 */
import type { CompiledFilter } from './filter.ts';
import type { Outgoing } from './outgoing.ts';

export interface Subscriber {
  readonly socketId: number;
  filter: CompiledFilter;
  /** Set once the connection is being closed: nothing more is sent. */
  readonly closing: boolean;
  /**
   * Whether the peer answers pings (a WebSocket). A stream of server-sent events cannot: its open
   * connection is its sign of life, and its keep-alive is a comment line.
   */
  readonly answersPings: boolean;
  /** Time of the latest valid pong (or of the opening). */
  lastPongAt: number;
  /**
   * Kept by the hub: the serial of the last `data` message it wrote to this connection, or of the
   * last telegram broadcast before the connection joined the live stream (what came before reached
   * it some other way, or was not for it). The hub writes it only later serials, in increasing order.
   */
  lastSerial: number;
  /** Writes one message; false when nothing was written (closing, or cut off as a slow consumer). */
  deliver(message: Outgoing): boolean;
  /** Sends an `error` (code and message); closes with it when `close` is set. */
  fail(code: number, message: string, close: boolean): void;
  /** Destroys the connection at once (shutdown, after its grace). */
  terminate(): void;
  /** Resolves once at most `bytes` are queued for the peer, or the connection has ended. */
  drained(bytes: number): Promise<void>;
}
