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

export class Heartbeat {
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
    this.hub.sendToAll(Buffer.from(pingMessage(pingId)), targets, (conn) => {
      conn.previousPingId = conn.lastPingId;
      conn.lastPingId = pingId;
    });
  }

  /**
   * A client `pong`: it must carry the latest pingId, or the one before (a client that fell a ping
   * behind under load answers late but is alive: closing it would add its reconnect to the load),
   * else the connection closes with 4640.
   */
  pong(conn: Subscriber, pingId: string | undefined): void {
    if (pingId === undefined || (pingId !== conn.lastPingId && pingId !== conn.previousPingId)) {
      conn.fail(closeCodes.pingIdMismatch, closeMessages.pingIdMismatch, true);
      return;
    }
    const now = this.clock.now();
    conn.lastPongAt = now;
    this.onPong(conn, now);
  }
}
