/**
 * Turns bus announcements of committed telegrams (busCodecs.telegram) into broadcasts on this process.
 * Records load concurrently but are broadcast in the order announced; a serial announced twice
 * (a redelivering bus, a replayed NOTIFY) is broadcast once.
 */
import { LRUCache } from 'lru-cache';
import type { TelegramCommitted } from '../bus/codecs.ts';
import type { Clock } from '../clock.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import type { Hub } from './hub.ts';

/** How many recent serials are remembered to suppress duplicates. */
const REMEMBERED = 4096;

export type LoadRecord = (serial: number) => Promise<TelegramRecord | null>;

export class Dispatcher {
  private tail: Promise<void> = Promise.resolve();
  private readonly seen = new LRUCache<number, true>({ max: REMEMBERED });

  constructor(
    private readonly hub: Hub,
    private readonly load: LoadRecord,
    private readonly clock: Clock,
    /** Name of this server in `passing` (e.g. `namazu/host-pid`). */
    private readonly serverName: string,
    private readonly onError: (err: unknown) => void = () => {},
    /** Told, per broadcast, the seconds from the announcement to the write to the last socket. */
    private readonly onDelivered: (record: TelegramRecord, seconds: number) => void = () => {},
  ) {}

  /** Handler for the bus: broadcasts the telegram committed under `serial`, once. */
  readonly announce = ({ serial }: TelegramCommitted): void => {
    if (this.seen.has(serial)) return;
    this.seen.set(serial, true);
    const announcedAt = performance.now();
    const loaded = this.load(serial);
    this.tail = Promise.all([loaded, this.tail])
      .then(([record]) => {
        if (record) this.deliver(record, announcedAt);
      })
      .catch(this.onError);
  };

  /** Resolves once every announcement so far has been broadcast (tests, shutdown). */
  async settled(): Promise<void> {
    await this.tail;
    await this.hub.drained();
  }

  private deliver(record: TelegramRecord, announcedAt: number): void {
    this.hub.broadcast(
      record,
      [
        { name: 'ingest', time: record.receivedTime },
        { name: this.serverName, time: new Date(this.clock.now()).toISOString() },
      ],
      () => this.onDelivered(record, (performance.now() - announcedAt) / 1000),
    );
  }
}
