/** One open WebSocket session on this process: its socket, filter and heartbeat state. */
import type { WebSocket } from 'ws';
import { drainOrClose } from './drain.ts';
import type { CompiledFilter } from './filter.ts';
import type { Outgoing } from './outgoing.ts';
import { closeCodes, closeMessages, errorMessage } from './protocol.ts';
import { rawSocketOf, writeFrame } from './raw-write.ts';
import type { Subscriber } from './subscriber.ts';

const TEXT = { binary: false } as const;

/** Told when the server closes a connection (its gate). */
export interface ClosingListener {
  /**
   * The server closed the connection with `code`: its session ends now, not once the peer has
   * answered, so that a peer that does not (its network gone, or it does not read) neither holds
   * its slot nor stays listed open until it is cut off.
   */
  closing?(socketId: number, code: number): void;
}

export class Connection implements Subscriber {
  readonly answersPings = true;
  /** Time of the latest valid pong (or of the opening): the 120 s pong timeout counts from here. */
  lastPongAt: number;
  /** Set once the connection is being closed: nothing more is sent. */
  closing = false;
  /** Client frames that were not a JSON object so far. */
  invalidFrames = 0;
  lastSerial = 0;

  constructor(
    readonly ws: WebSocket,
    readonly socketId: number,
    public filter: CompiledFilter,
    openedAt: number,
    /** Bytes a socket may have queued before it counts as a slow consumer. */
    private readonly maxBufferedBytes: number,
    private readonly gate: ClosingListener,
  ) {
    this.lastPongAt = openedAt;
  }

  /**
   * Sends one text frame (a pre-serialised Buffer is sent as is, without copying). A socket whose
   * queue is already over the bound is dropped instead: memory stays bounded whatever the client.
   */
  send(data: Buffer | string): boolean {
    if (!this.writable()) return false;
    this.ws.send(data, TEXT);
    return true;
  }

  /**
   * Sends a message whose complete frame was built once for every socket: the frame's bytes are
   * written as they are, or the payload goes through `ws.send` while `ws` is still busy with an
   * earlier frame. Same bound as `send`.
   */
  deliver(message: Outgoing): boolean {
    if (!this.writable()) return false;
    if (!writeFrame(this.ws, message.wsFrame)) this.ws.send(message.payload, TEXT);
    return true;
  }

  terminate(): void {
    this.ws.terminate();
  }

  drained(bytes: number): Promise<void> {
    const socket = rawSocketOf(this.ws);
    if (!socket || this.ws.bufferedAmount <= bytes || this.ws.readyState !== 1) return Promise.resolve();
    return drainOrClose(socket);
  }

  private writable(): boolean {
    if (this.closing || this.ws.readyState !== 1) return false;
    if (this.ws.bufferedAmount > this.maxBufferedBytes) {
      // One last small frame says why, then the connection closes: nothing more is queued.
      this.ws.send(errorMessage(closeMessages.slowConsumer, closeCodes.serverRestart, true), TEXT);
      this.close(closeCodes.serverRestart, closeMessages.slowConsumer);
      return false;
    }
    return true;
  }

  /**
   * Sends an `error` message; when `close` is set, closes with the same code (docs/api-contract.md
   * "Messages").
   */
  fail(code: number, message: string, close: boolean): void {
    if (this.closing) return;
    // Error replies obey the same bound as deliveries: a client that never reads cannot grow the queue.
    if (!this.send(errorMessage(message, code, close))) return;
    if (close) this.close(code, message);
  }

  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    if (this.ws.readyState !== 0 && this.ws.readyState !== 1) return;
    this.gate.closing?.(this.socketId, code);
    // The close frame queues behind pending data; a peer that does not answer it is cut off after
    // the endpoint's close grace (its `closeTimeout`).
    this.ws.close(code, reason);
  }
}
