/**
 * One stream of server-sent events on `GET /v2/stream` (docs/realtime.md "Server-sent events"): the
 * same delivery as a socket, written as events to a plain HTTP response. Same bound as a socket: a
 * stream with more queued than `maxBufferedBytes` when the next message is due is a slow consumer,
 * and is told so and ended.
 */
import type { ServerResponse } from 'node:http';
import type { CompiledFilter } from './filter.ts';
import { sseEvent, type Outgoing } from './outgoing.ts';
import { closeCodes, closeMessages, errorMessage } from './protocol.ts';
import type { Subscriber } from './subscriber.ts';

/** A comment line: proxies see bytes moving on an idle stream, clients ignore it. */
const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

export class SseConnection implements Subscriber {
  readonly answersPings = false;
  lastPingId: string | null = null;
  lastPongAt: number;
  closing = false;
  /** The code the server ended the stream with (null: the client went away). */
  closeCode: number | null = null;

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
    this.res.write(message.sseEvent);
    return true;
  }

  keepAlive(): void {
    if (this.writable()) this.res.write(KEEP_ALIVE);
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
    if (this.res.writableLength <= bytes || !this.open()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
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
