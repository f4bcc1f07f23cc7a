import type { ServerResponse } from 'node:http';
import type { Clock } from '../../clock.ts';
import type { TelegramCache } from '../../telegrams/cache.ts';
import type { TelegramRecord } from '../../telegrams/record.ts';
import { inEffectAt } from './eew-now.ts';
import { payloadOf, type LivePayload } from './payloads.ts';
import { StreamSlots, type SlotHolder, type SlotLimits, type StreamSlot } from './slots.ts';

/**
 * The live view's event stream (docs/console-live.md "The stream"): server-sent events that follow
 * the telegram store by serial, like the real-time delivery (docs/realtime.md "Gap-free
 * delivery"). Each connection keeps the last serial it was sent and, on every wake-up (a telegram
 * announcement, or the healing timer), is sent every stored telegram after it, in serial order.
 * The event id is the serial, so a browser that reconnects with `Last-Event-ID` misses nothing.
 */

export interface FeedLimits extends SlotLimits {
  /** Telegrams replayed on (re)connection; a client further behind is told to reload. */
  maxReplay: number;
  /** Bytes queued on one connection before it is closed as a slow consumer (it then resumes). */
  maxBuffered: number;
}

export const defaultFeedLimits: FeedLimits = {
  perAccount: 4,
  perAddress: 16,
  total: 1000,
  adminReserve: 50,
  maxReplay: 1000,
  maxBuffered: 1024 * 1024,
};

export interface LiveClient {
  accountId: number;
  /** The sign-in session the stream belongs to: it ends with it. */
  sessionDigest: string;
  /** Classifications the account's contracts cover. */
  classifications: ReadonlySet<string>;
}

interface Connection extends LiveClient {
  res: ServerResponse;
  position: number;
  running: boolean;
  again: boolean;
  /** Whether the next catch-up reads the database first (a wake-up the cache may not cover). */
  fresh: boolean;
}

/** Telegrams read per round trip while catching up. */
const BATCH = 100;

function frame(serial: number, payload: LivePayload | null): string {
  if (!payload) return `id: ${serial}\n\n`;
  return `id: ${serial}\nevent: ${payload.event}\ndata: ${JSON.stringify(payload.data)}\n\n`;
}

export class LiveFeed {
  private readonly connections = new Set<Connection>();
  private readonly slots: StreamSlots;
  /** Set by closeAll (the process is stopping): a stream opened after it ends at once. */
  private closed = false;

  constructor(
    private readonly cache: TelegramCache,
    /** The clock of the early warnings' time (eew-now.ts), the same as a page opening reads. */
    private readonly clock: Clock,
    private readonly limits: FeedLimits,
    private readonly onError: (err: unknown) => void,
  ) {
    this.slots = new StreamSlots(limits);
  }

  /** Live views of this process, open or opening. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * A slot for one more live view of `holder` (released by the caller when its request ends), or
   * null when a cap is reached (live/slots.ts).
   */
  reserve(holder: SlotHolder): StreamSlot | null {
    return this.slots.take(holder);
  }

  /** The newest committed serial (where a fresh live view starts). */
  newest(): Promise<number> {
    return this.cache.newest();
  }

  /**
   * Starts streaming to `res` (headers already written) everything after `after`. A client too far
   * behind gets a `reload` event and starts from the newest telegram. After closeAll it just ends.
   */
  async open(client: LiveClient, res: ServerResponse, after: number): Promise<void> {
    const newest = await this.cache.newest();
    if (res.destroyed) return;
    if (this.closed) {
      res.end();
      return;
    }
    let position = Math.min(after, newest);
    if (newest - position > this.limits.maxReplay) {
      res.write(`id: ${newest}\nevent: reload\ndata: {}\n\n`);
      position = newest;
    }
    const conn: Connection = { ...client, res, position, running: false, again: false, fresh: true };
    this.connections.add(conn);
    res.on('close', () => this.connections.delete(conn));
    this.catchUp(conn);
  }

  /**
   * Bus handler and healing timer: every connection is sent what was committed after its position,
   * from the cache's memory when it holds the serial announced (this process committed it, or read
   * it already), else after the cache has read the database (the timer names no serial).
   */
  readonly wake = (announced?: { serial: number }): void => {
    const fresh = announced === undefined || !this.cache.holds(announced.serial);
    for (const conn of this.connections) {
      conn.fresh ||= fresh;
      this.catchUp(conn);
    }
  };

  /** Keeps proxies from closing an idle stream. */
  ping(): void {
    for (const conn of this.connections) conn.res.write(': ping\n\n');
  }

  /** Closes every stream of the account (disabled) or of one session (signed out or expired). */
  close(match: (client: LiveClient) => boolean): void {
    for (const conn of [...this.connections]) {
      if (match(conn)) this.end(conn);
    }
  }

  clients(): LiveClient[] {
    return [...this.connections];
  }

  /** Changes the classifications of the account's open streams (a contract applied or ended). */
  refilter(accountId: number, classifications: ReadonlySet<string>): void {
    for (const conn of this.connections)
      if (conn.accountId === accountId) conn.classifications = classifications;
  }

  /** Ends every stream, and any opened from now on (the process is stopping). */
  closeAll(): void {
    this.closed = true;
    for (const conn of [...this.connections]) this.end(conn);
  }

  private end(conn: Connection): void {
    this.connections.delete(conn);
    conn.res.end();
  }

  private catchUp(conn: Connection): void {
    if (conn.running) {
      conn.again = true;
      return;
    }
    conn.running = true;
    this.send(conn)
      .catch((err: unknown) => {
        this.onError(err);
        this.end(conn);
      })
      .finally(() => {
        conn.running = false;
        if (conn.again && this.connections.has(conn)) {
          conn.again = false;
          this.catchUp(conn);
        }
      });
  }

  private async send(conn: Connection): Promise<void> {
    conn.again = false;
    for (;;) {
      const fresh = conn.fresh;
      conn.fresh = false;
      const batch = await this.cache.after(conn.position, BATCH, fresh);
      if (!this.connections.has(conn)) return;
      let out = '';
      let skipped = false;
      for (const record of batch) {
        if (record.serial <= conn.position) continue;
        conn.position = record.serial;
        const payload = this.visible(conn, record) ? this.payloadOf(record) : null;
        if (payload) out += frame(record.serial, payload);
        skipped = !payload;
      }
      // An id alone moves the browser's Last-Event-ID past telegrams it is not shown.
      if (skipped) out += frame(conn.position, null);
      if (out) conn.res.write(out);
      if (conn.res.writableLength > this.limits.maxBuffered) {
        this.end(conn);
        return;
      }
      if (batch.length < BATCH) return;
    }
  }

  /**
   * What the stream says of the telegram. An early warning's report carries the time it has left,
   * and one whose time is over (received long before it is sent: stored late, or sent again to a
   * reconnecting browser) raises no banner: only its id is sent.
   */
  private payloadOf(record: TelegramRecord): LivePayload | null {
    const payload = payloadOf(record);
    if (payload?.event !== 'eew') return payload;
    const banner = inEffectAt(payload.data, this.clock.now());
    return banner && { event: 'eew', data: banner };
  }

  private visible(conn: Connection, record: TelegramRecord): boolean {
    return conn.classifications.has(record.classification);
  }
}
