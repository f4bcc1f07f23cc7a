/**
 * The one timer of the real-time sessions of this process, every ping interval: the heartbeat
 * pings everyone (closing the silent), the pongs of the last period are recorded in one statement,
 * the connections whose session was closed by its account, or for its connection limit, while the
 * bus did not tell us close, the store is asked again which connections are cut off, which hold a
 * classification whose contract ended (the bus did not tell us either), and whose account holds more
 * connections than its limit (lowered by the operator, or a plus contract ended untold). The last
 * two are asked only of accounts whose limit or contracts changed since this process last found
 * them within, and of sessions not held then (socket-sessions.ts `LimitChecks`).
 */
import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { LimitChecks, PONG_TIMEOUT_MS, missedChanges, recordPings } from '../sessions/socket-sessions.ts';
import { closeBeyondLimit } from './contract-change.ts';
import type { CutOffTracker } from './cut-off.ts';
import { Heartbeat } from './heartbeat.ts';
import type { Hub } from './hub.ts';
import { sessionIds } from './session-ids.ts';

export interface UpkeepOptions {
  db: Queryable;
  hub: Hub;
  clock: Clock;
  pingIntervalMs: number;
  cutOff: CutOffTracker;
  /** Closes a connection whose session its account closed (4808). */
  closeByAccount: (socketId: number) => void;
  /**
   * Narrows the connections of an account whose contracts changed (4807 when none is left), and
   * closes those beyond its connection limit (4409).
   */
  contractsChanged: (accountId: number) => void;
  onError: (err: unknown) => void;
}

export class SessionUpkeep {
  readonly heartbeat: Heartbeat;
  /** The sessions that answered a ping since the last tick. */
  private readonly ponged = new Set<number>();
  /** The accounts held that were found within their limit and contracts, and under which terms. */
  private readonly limitChecks = new LimitChecks();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: UpkeepOptions) {
    const { hub, clock } = options;
    this.heartbeat = new Heartbeat(
      hub,
      clock,
      // Spread over half the interval: each tick's last pings go out well before the next tick.
      { timeoutMs: PONG_TIMEOUT_MS, spreadMs: options.pingIntervalMs / 2 },
      // Anonymous connections (negative ids, public-admission.ts) have no session to record pings in.
      (conn) => {
        if (conn.socketId > 0) this.ponged.add(conn.socketId);
      },
    );
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.options.pingIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.heartbeat.stop();
  }

  /** Looks at every held account's limit and contracts at the next tick (liveness.ts: sessions opened again). */
  recheckLimits(): void {
    this.limitChecks.forget();
  }

  private tick(): void {
    const { db, hub, clock, cutOff, closeByAccount, contractsChanged, onError } = this.options;
    this.heartbeat.tick();
    const ids = [...this.ponged];
    this.ponged.clear();
    recordPings(db, ids, clock.now()).catch(onError);
    missedChanges(db, sessionIds(hub.connections()), this.limitChecks)
      .then((missed) => {
        missed.closedByAccount.forEach(closeByAccount);
        closeBeyondLimit(hub, missed.beyondLimit);
        new Set([...missed.contractsEnded, ...missed.overLimit]).forEach((id) => contractsChanged(id));
      })
      .catch(onError);
    cutOff.recheck();
  }
}
