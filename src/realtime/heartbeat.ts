/**
 * Server pings and the pong timeout (docs/api-contract.md "Heartbeats"). One timer for the whole
 * process rather than one per socket (realtime/upkeep.ts ticks it every ping interval): each tick closes the connections silent for too long and
 * pings the others with a single shared message, sent through the hub's ordinary lane so an EEW
 * never waits behind it. Many connections are pinged in slices spread over part of the interval:
 * all at once, a process of 12,000 writes 12,000 pings and reads 12,000 pongs in the same fraction
 * of a second, and a telegram arriving then waits behind them (docs/realtime.md "Heartbeats").
 */
import type { Clock } from '../clock.ts';
import type { Hub } from './hub.ts';
import type { Subscriber } from './subscriber.ts';
import { closeCodes, closeMessages, newPingId, pingMessage } from './protocol.ts';

export interface HeartbeatOptions {
  /** A connection with no valid pong for this long is closed with 4891 (default 120 s). */
  timeoutMs: number;
  /** The time over which one tick's pings are spread (0: all at once). */
  spreadMs?: number;
  /** Pings written together; a tick of no more connections pings them all at once. */
  pingsPerSlice?: number;
}

/**
 * Pings written together when a tick's are spread: a few milliseconds of writes, and of pongs read
 * back, however many connections the process holds.
 */
const PINGS_PER_SLICE = 500;

/** The pong timeout's worth of pings at the shortest ping interval (1 s): the bound on `recent`. */
const MAX_RECENT_PINGS = 120;

export class Heartbeat {
  /**
   * The pingIds sent within the pong timeout and when: one per tick, shared by every connection (a
   * few at the default interval).
   */
  private readonly recent = new Map<string, number>();
  /** The timers of the slices of the last tick still to be pinged. */
  private readonly slices = new Set<NodeJS.Timeout>();

  constructor(
    private readonly hub: Hub,
    private readonly clock: Clock,
    private readonly options: HeartbeatOptions,
    /** Told about every valid pong (the session records its `ping` time). */
    private readonly onPong: (conn: Subscriber, at: number) => void = () => {},
  ) {}

  tick(): void {
    const now = this.clock.now();
    const pingId = newPingId();
    for (const [id, at] of this.recent) {
      if (now - at >= this.options.timeoutMs || this.recent.size >= MAX_RECENT_PINGS) this.recent.delete(id);
    }
    this.recent.set(pingId, now);
    const targets: Subscriber[] = [];
    for (const conn of this.hub.connections()) {
      if (conn.closing) continue;
      // A stream of server-sent events cannot answer: while it is open, it is alive.
      if (!conn.answersPings) this.onPong(conn, now);
      else if (now - conn.lastPongAt >= this.options.timeoutMs) {
        conn.fail(closeCodes.pingTimeout, closeMessages.pingTimeout, true);
      } else {
        targets.push(conn);
      }
    }
    this.ping(pingId, Buffer.from(pingMessage(pingId)), targets);
  }

  /** Forgets the slices still to be pinged (the process stops). */
  stop(): void {
    for (const timer of this.slices) clearTimeout(timer);
    this.slices.clear();
  }

  /**
   * Pings `targets` at once, or in slices spaced evenly over `spreadMs`. The pingId counts as sent
   * when its last slice was: the pong timeout of the connections pinged last runs from then.
   */
  private ping(pingId: string, message: Buffer, targets: Subscriber[]): void {
    const perSlice = this.options.pingsPerSlice ?? PINGS_PER_SLICE;
    const spreadMs = this.options.spreadMs ?? 0;
    if (targets.length <= perSlice || spreadMs <= 0) return this.hub.sendToAll(message, targets);
    const count = Math.ceil(targets.length / perSlice);
    for (let i = 0; i < count; i++) {
      const slice = targets.slice(i * perSlice, (i + 1) * perSlice);
      const send = () => {
        if (this.recent.has(pingId)) this.recent.set(pingId, this.clock.now());
        // A connection closed since the tick is skipped by its own deliver().
        this.hub.sendToAll(message, slice);
      };
      if (i === 0) {
        send();
        continue;
      }
      const timer = setTimeout(
        () => {
          this.slices.delete(timer);
          send();
        },
        (i * spreadMs) / count,
      );
      timer.unref();
      this.slices.add(timer);
    }
  }

  /**
   * A client `pong`: it must carry the pingId of a ping sent within the pong timeout, the latest or
   * an older one (a client that fell behind under load answers late but is alive: closing it would
   * add its reconnect to the load), else the connection closes with 4640.
   */
  pong(conn: Subscriber, pingId: string | undefined): void {
    const now = this.clock.now();
    const sentAt = pingId === undefined ? undefined : this.recent.get(pingId);
    if (sentAt === undefined || now - sentAt >= this.options.timeoutMs) {
      conn.fail(closeCodes.pingIdMismatch, closeMessages.pingIdMismatch, true);
      return;
    }
    conn.lastPongAt = now;
    this.onPong(conn, now);
  }
}
