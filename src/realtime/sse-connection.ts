/**
 * One stream of server-sent events on `GET /v2/stream` (docs/realtime.md "Server-sent events"): the
 * same delivery as a socket, written as events to a plain HTTP response. Same bound as a socket: a
 * stream with more queued than `maxBufferedBytes` when the next message is due is a slow consumer,
 * and is told so and ended.
 *
 * A broadcast writes each event as one HTTP chunk framed once for every stream, straight to the TCP
 * socket, as a socket's frame is written (docs/realtime.md "Fan-out"): `res.write` would frame it
 * again for each stream, in three pieces corked until the next tick.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { drainOrClose } from './drain.ts';
import type { CompiledFilter } from './filter.ts';
import { sseEvent, type Outgoing } from './outgoing.ts';
import { closeCodes, closeMessages, errorMessage } from './protocol.ts';
import type { Subscriber } from './subscriber.ts';

/** A comment line: proxies see bytes moving on an idle stream, clients ignore it. */
const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

export class SseConnection implements Subscriber {
  readonly answersPings = false;
  lastPongAt: number;
  closing = false;
  /** The code the server ended the stream with (null: the client went away). */
  closeCode: number | null = null;
  lastSerial = 0;

  constructor(
    readonly res: ServerResponse,
    readonly socketId: number,
    public filter: CompiledFilter,
    openedAt: number,
    private readonly maxBufferedBytes: number,
    /** How long the peer has to take the last bytes once the stream ends before it is destroyed. */
    private readonly closeGraceMs: number,
  ) {
    this.lastPongAt = openedAt;
  }

  deliver(message: Outgoing): boolean {
    if (!this.writable()) return false;
    const socket = this.rawSocket();
    if (socket) socket.write(message.sseChunk);
    else this.res.write(message.sseEvent);
    return true;
  }

  /**
   * The TCP socket when a pre-framed chunk may go to it directly: the headers are out, the body is
   * chunked, and the response has nothing of its own waiting (its writes are then the socket's,
   * in order).
   */
  private rawSocket(): Socket | null {
    const { res } = this;
    const socket = res.socket;
    if (!socket || !res.headersSent || !res.chunkedEncoding) return null;
    return res.writableLength === socket.writableLength ? socket : null;
  }

  /** The keep-alive comment, or `block` (the comment with the stream's position, stream.ts). */
  keepAlive(block: Buffer = KEEP_ALIVE): void {
    if (this.writable()) this.res.write(block);
  }

  /** An `error` event carrying the WebSocket's `error` message; the stream ends when `close` is set. */
  fail(code: number, message: string, close: boolean): void {
    if (!this.writable()) return;
    this.res.write(sseEvent('error', errorMessage(message, code, close)));
    if (close) this.close(code);
  }

  terminate(): void {
    this.res.destroy();
  }

  drained(bytes: number): Promise<void> {
    // The socket's own 'drain': the response emits one only after a write of its own was refused.
    const socket = this.res.socket;
    if (!socket || this.res.writableLength <= bytes || !this.open()) return Promise.resolve();
    return drainOrClose(socket);
  }

  private open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  private writable(): boolean {
    if (this.closing || !this.open()) return false;
    if (this.res.writableLength > this.maxBufferedBytes) {
      // One last small event says why, then the stream ends: nothing more is queued.
      this.res.write(
        sseEvent('error', errorMessage(closeMessages.slowConsumer, closeCodes.serverRestart, true)),
      );
      this.close(closeCodes.serverRestart);
      return false;
    }
    return true;
  }

  private close(code: number): void {
    this.closing = true;
    this.closeCode = code;
    this.res.end();
    // A peer that takes nothing more would hold the response (and what is queued) open.
    const cutOff = setTimeout(() => this.res.destroy(), this.closeGraceMs).unref();
    this.res.once('close', () => clearTimeout(cutOff));
  }
}
