/**
 * The real-time delivery's position in the telegram stream (docs/realtime.md, "Gap-free delivery").
 * The serial-ordered store is the truth and the bus only wakes this process up: the dispatcher keeps
 * the last serial it broadcast and, on every wake-up (an announcement, or the healing timer that
 * covers a lost announcement or a bus outage), broadcasts every stored telegram after it, in serial
 * order, exactly once. Serials become visible in increasing order (ingest holds a lock to COMMIT),
 * so reading "everything after the last one" never skips a telegram that committed late.
 */
import { CoalescedJob } from '../coalesced-job.ts';
import type { Clock } from '../clock.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import type { Hub } from './hub.ts';
import type { PassingHop } from './protocol.ts';

/** Where the dispatcher reads the stream from (the process's telegram cache, else the database). */
export interface TelegramSource {
  /** The newest committed serial (0 when none). */
  newest(): Promise<number>;
  /**
   * Stored telegrams with serials above `after`, oldest first, at most `limit`; with `fresh` false,
   * what the source holds already (asked only when holds() said it holds the serial announced).
   */
  after(after: number, limit: number, fresh?: boolean): Promise<TelegramRecord[]>;
  /** Whether the source holds this serial and every one before it without reading the store. */
  holds?(serial: number): boolean;
}

/** The `passing` of a telegram sent by this server now: ingest at reception, then this server. */
export function passingOf(record: TelegramRecord, serverName: string, now: number): PassingHop[] {
  return [
    { name: 'ingest', time: record.receivedTime },
    { name: serverName, time: new Date(now).toISOString() },
  ];
}

/** Telegrams read per round trip while catching up. */
const BATCH = 256;

export class Dispatcher {
  private delivered = 0;
  /** One catch-up at a time; one more after it when woken meanwhile. */
  private readonly reads = new CoalescedJob(
    () => this.catchUp(),
    (err) => this.onError(err),
  );
  /** When the oldest wake-up not yet served came (for the delivery-latency figure). */
  private wokenAt: number | null = null;
  /** The newest serial announced since the last read began (0: none). */
  private announced = 0;
  /** A wake-up since the last read began that named no serial (the healing timer): read the store. */
  private unnamed = false;

  constructor(
    private readonly hub: Hub,
    private readonly source: TelegramSource,
    private readonly clock: Clock,
    /** Name of this server in `passing` (e.g. `namazu/host-pid`). */
    private readonly serverName: string,
    private readonly onError: (err: unknown) => void = () => {},
    /** Told, per broadcast, the seconds from the wake-up to the write to the last socket. */
    private readonly onDelivered: (record: TelegramRecord, seconds: number) => void = () => {},
  ) {}

  /** Starts after the newest telegram committed so far: clients get what is committed from now on. */
  async start(): Promise<void> {
    this.delivered = await this.source.newest();
  }

  /** The last serial broadcast. */
  get position(): number {
    return this.delivered;
  }

  /**
   * Bus handler: an announcement is only a wake-up; what to send is read from the store, or from the
   * source's memory when it holds the serial announced (this process committed it, or the notice
   * brought it: telegrams/announced-record.ts). A serial already broadcast wakes nothing: this
   * process's own commits reach here after their delivery (the cache woke it first), and everything
   * up to that serial has gone out in order.
   */
  readonly announce = ({ serial }: { serial: number }): void => {
    if (serial > this.delivered) this.wake(serial);
  };

  /**
   * Broadcasts whatever was committed after the last serial broadcast (coalesced: one reader).
   * `serial`, when given, is the commit that woke it up.
   */
  wake(serial?: number): void {
    if (serial === undefined) this.unnamed = true;
    else this.announced = Math.max(this.announced, serial);
    this.wokenAt ??= performance.now();
    this.reads.request();
  }

  /**
   * Resolves once everything committed before the call has been handed to the hub (a resuming
   * connection whose telegram this process has not broadcast yet waits for it).
   */
  async caughtUp(): Promise<void> {
    this.wake();
    await this.reads.idle();
  }

  /** Resolves once everything committed before the call has been broadcast (tests, shutdown). */
  async settled(): Promise<void> {
    await this.caughtUp();
    await this.hub.drained();
  }

  private async catchUp(): Promise<void> {
    const wokenAt = this.wokenAt ?? performance.now();
    this.wokenAt = null;
    const fresh = this.unnamed || !(this.source.holds?.(this.announced) ?? false);
    this.unnamed = false;
    this.announced = 0;
    for (;;) {
      const batch = await this.source.after(this.delivered, BATCH, fresh);
      for (const record of batch) {
        if (record.serial <= this.delivered) continue;
        this.delivered = record.serial;
        this.deliver(record, wokenAt);
      }
      if (batch.length < BATCH) return;
    }
  }

  private deliver(record: TelegramRecord, wokenAt: number): void {
    this.hub.broadcast(record, passingOf(record, this.serverName, this.clock.now()), () =>
      this.onDelivered(record, (performance.now() - wokenAt) / 1000),
    );
  }
}
