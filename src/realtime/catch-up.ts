/**
 * The catch-up of a resuming connection (docs/realtime.md "Resume"): every stored telegram after the
 * one the client last handled that its filter admits, in serial order, then the live stream, with
 * no gap and no duplicate.
 *
 * The connection is attached to the hub at once (found by id, pinged, closed by its account or cut
 * off like any other) but joins no group, so no broadcast includes it. The catch-up pages the store
 * from the client's serial up to the dispatcher's position P, which it reads again after every
 * page: P only grows, and everything up to P has been handed to the hub (the dispatcher moves P
 * and broadcasts in one synchronous step). Once the pages have reached P — checked and joined in
 * one synchronous step — every broadcast after P includes the connection. Nothing is queued for it
 * meanwhile: the store holds what it missed. Pages yield the event loop between them, each message
 * waits for the connection to take what was written, and pages are read only once the hub has written
 * no broadcast for `LIVE_QUIET_MS`, so that a catch-up neither holds live delivery to others nor
 * takes the machine from the clients reading it (at most `MAX_YIELD_MS` per page: a busy stream
 * slows a catch-up, it does not stop it). All catch-ups together write at most `BYTES_PER_TURN` in
 * one turn of the event loop, however many resume at once.
 */
import type { Clock } from '../clock.ts';
import type { TelegramSource } from './dispatcher.ts';
import { passingOf } from './dispatcher.ts';
import { matches } from './filter.ts';
import type { Hub } from './hub.ts';
import { Outgoing } from './outgoing.ts';
import { closeCodes, closeMessages, dataMessage } from './protocol.ts';
import type { Subscriber } from './subscriber.ts';
import { TurnBudget } from './turn-budget.ts';

/** Telegrams read per page. */
const PAGE = 100;
/** A message is written once the connection has at most this much queued (back-pressure, not a cut-off). */
const LOW_WATER_BYTES = 256 * 1024;
/**
 * What all catch-ups of the process may write in one turn of the event loop (turn-budget.ts): a
 * message costs its body's bytes and a fixed part (building it, its frame, the write).
 */
const BYTES_PER_TURN = 512 * 1024;
const MESSAGE_COST_BYTES = 2048;
/** Live delivery goes first: a page waits until no broadcast was written for this long… */
const LIVE_QUIET_MS = 50;
/** …or this long at most. */
const MAX_YIELD_MS = 250;

/** What the catch-up needs of the dispatcher: its position, and a way to wait for it to move. */
export interface StreamPosition {
  /** The last serial handed to the hub. */
  readonly position: number;
  /** Resolves once everything committed before the call has been handed to the hub. */
  caughtUp(): Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CatchUp {
  private readonly budget = new TurnBudget(BYTES_PER_TURN);

  constructor(
    private readonly hub: Hub,
    private readonly dispatcher: StreamPosition,
    private readonly source: TelegramSource,
    private readonly clock: Clock,
    private readonly serverName: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The last serial handed to the hub: where a live connection stands. */
  get position(): number {
    return this.dispatcher.position;
  }

  /**
   * Attaches `conn`, sends it what was committed after serial `after`, then joins it to the live
   * stream. A failure (the store unreachable) closes the connection with 4503: the client resumes.
   */
  start(conn: Subscriber, after: number): Promise<void> {
    this.hub.attach(conn);
    return this.run(conn, after).catch((err: unknown) => {
      this.onError(err);
      conn.fail(closeCodes.serverRestart, closeMessages.internalError, true);
    });
  }

  private async run(conn: Subscriber, after: number): Promise<void> {
    // A telegram this process has not broadcast yet: the live stream must start after it.
    if (this.dispatcher.position < after) await this.dispatcher.caughtUp();
    // Still short of it: the store failed the dispatcher's read (caughtUp() does not throw). Joining
    // now would send the client what it has, once the read heals: it resumes again instead.
    if (this.dispatcher.position < after)
      return conn.fail(closeCodes.serverRestart, closeMessages.internalError, true);
    let cursor = after;
    for (;;) {
      if (conn.closing || !this.hub.holds(conn)) return;
      const target = this.dispatcher.position;
      if (cursor >= target) {
        this.hub.join(conn);
        return;
      }
      await conn.drained(LOW_WATER_BYTES);
      await this.hub.quiet(LIVE_QUIET_MS, MAX_YIELD_MS);
      // Everything up to `target` was handed to the hub, but the dispatcher may have read it past
      // what the source holds (from the database): then the source reads it first.
      const page = await this.source.after(cursor, PAGE, !(this.source.holds?.(target) ?? false));
      // A live telegram that came while the page was read goes out first.
      await this.hub.drained();
      if (conn.closing || !this.hub.holds(conn)) return;
      for (const record of page) {
        if (record.serial > target) break;
        cursor = record.serial;
        if (!matches(conn.filter, record)) continue;
        // A page may outgrow the slow-consumer bound: each message waits for the low-water mark,
        // and for room in this turn beside the process's other catch-ups.
        await conn.drained(LOW_WATER_BYTES);
        await this.budget.take(record.body.length + MESSAGE_COST_BYTES);
        if (conn.closing) return;
        const passing = passingOf(record, this.serverName, this.clock.now());
        if (!conn.deliver(new Outgoing(dataMessage(record, passing), record.id))) return;
      }
      if (page.length < PAGE || page[page.length - 1]!.serial >= target) cursor = target;
      await nextTurn();
    }
  }
}
