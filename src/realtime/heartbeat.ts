/**
 * Server pings and the pong timeout (docs/api-contract.md "Heartbeats"). One timer for the whole
 * process rather than one per socket (realtime/upkeep.ts ticks it every ping interval): each tick closes the connections silent for too long and
 * pings the others with a single shared message, sent through the hub's ordinary lane so an EEW
 * never waits behind it.
 */
import type { Clock } from '../clock.ts';
import type { Hub } from './hub.ts';
import type { Subscriber } from './subscriber.ts';
import { closeCodes, closeMessages, newPingId, pingMessage } from './protocol.ts';

export interface HeartbeatOptions {
  /** A connection with no valid pong for this long is closed with 4891 (default 120 s). */
  timeoutMs: number;
}

/** The pong timeout's worth of pings at the shortest ping interval (1 s): the bound on `recent`. */
const MAX_RECENT_PINGS = 120;

export class Heartbeat {
  /**
   * The pingIds sent within the pong timeout and when: one per tick, shared by every connection (a
   * few at the default interval).
   */
  private readonly recent = new Map<string, number>();

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
    this.hub.sendToAll(Buffer.from(pingMessage(pingId)), targets);
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
