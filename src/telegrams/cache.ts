import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { Queryable } from '../db/types.ts';
import { announcedRecord } from './announced-record.ts';
import { PageCache } from './page-cache.ts';
import type { TelegramRecord } from './record.ts';
import {
  loadNewestTelegrams,
  loadTelegramsAfter,
  matches,
  type TelegramQuery,
  type TelegramSummary,
} from './store.ts';
import { summaryBytes } from './summary-bytes.ts';

export interface TelegramCacheOptions {
  /** Newest telegrams kept (default 2000). */
  maxItems?: number;
  /** Bound on the telegrams kept, bodies and summaries (summaryBytes), in bytes (default 64 MiB). */
  maxBytes?: number;
}

/** The telegram cache's default bound (docs/operations.md "Memory"). */
export const TELEGRAM_CACHE_BYTES = 64 * 1024 * 1024;

/** What a held telegram costs: its body and its summary with what is kept with it. */
const heldBytes = (t: TelegramRecord) => t.body.length + summaryBytes(t);

/**
 * The newest telegrams of this process, kept current from the bus: first list pages and polling
 * with nextPooling are answered from here, and the real-time delivery reads new telegrams here
 * instead of asking the database once per telegram.
 *
 * Invariant: every stored telegram with a serial above `completeAbove` is held.
 */
export class TelegramCache {
  /** Ascending by serial. */
  private items: TelegramRecord[] = [];
  private bySerial = new Map<number, TelegramRecord>();
  /** The serial of each held telegram, by id: a resuming client names its last telegram by id. */
  private serialById = new Map<string, number>();
  private bytes = 0;
  private completeAbove = 0;
  private refreshing: Promise<void> = Promise.resolve();
  /** A refresh queued but not yet started: callers until it starts share it. */
  private queued: Promise<void> | null = null;
  private readonly maxItems: number;
  private readonly maxBytes: number;
  /** Older list pages read from the database, which only pruning can change. */
  readonly pages = new PageCache();

  private constructor(
    private readonly db: Queryable,
    options: TelegramCacheOptions,
  ) {
    this.maxItems = options.maxItems ?? 2000;
    this.maxBytes = options.maxBytes ?? TELEGRAM_CACHE_BYTES;
  }

  /**
   * Brings the cache up to `serial` at least. Ingest awaits it before acknowledging a commit, so that
   * a list answered from memory is never older than a commit its caller has seen acknowledged by this
   * process (docs/data-api.md "Read your writes").
   */
  async catchUp(serial: number): Promise<void> {
    if (this.newestSerial < serial) await this.refresh();
  }

  /**
   * Telegrams this process has just committed from `first` on (`records` builds them, with
   * committedRecord, in serial order), before it announces them: when they follow the newest held
   * one without a gap, they are held at once and the process's deliveries are woken, so that
   * neither waits for the database to give them back: this is ingest's hand-off to the real-time
   * delivery and the webhook queuer (`onCommitted`). Otherwise (another process committed in between,
   * a serial was skipped) nothing is built and they are read as any other commit is.
   */
  committed(first: number, records: () => readonly TelegramRecord[]): void {
    if (first !== this.newestSerial + 1) return;
    for (const t of records()) {
      if (t.serial !== this.newestSerial + 1) break;
      this.add(t);
    }
    this.trim();
    for (const listener of this.listeners) listener(this.newestSerial);
  }

  /**
   * Another process's commit, announced with its record (announced-record.ts): held at once when it
   * follows the newest held telegram, as committed() holds this process's own, and the subscribers
   * of the bus that come after the cache's (the real-time delivery, the webhook queuer) find it here
   * without a read. False when it was not taken: the caller reads the store.
   */
  private announced(serial: number, carried: unknown): boolean {
    if (carried === undefined || serial !== this.newestSerial + 1) return false;
    const record = announcedRecord(serial, carried);
    if (record === null) return false;
    this.add(record);
    this.trim();
    return true;
  }

  /** What runs when committed() holds new telegrams (the real-time delivery's wake-up). */
  private readonly listeners = new Set<(serial: number) => void>();

  /** Calls `listener` with the newest serial whenever committed() holds new telegrams. */
  onCommitted(listener: (serial: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Loads the newest telegrams and follows the bus. The server starts one for its process
   * (AppContext.telegrams), shared by the data API, the real-time delivery, the webhook queuer, the
   * console's live views and ingest. Call stop() at shutdown.
   */
  static async start(
    db: Queryable,
    bus: Bus,
    options: TelegramCacheOptions = {},
  ): Promise<{ cache: TelegramCache; stop: () => Promise<void> }> {
    const cache = new TelegramCache(db, options);
    // Subscribe first, so nothing committed while loading is missed: the read after the load below
    // takes in what was announced meanwhile. A read started before the load has answered would walk
    // the table from its start and interleave with the load, leaving unheld telegrams above the
    // serial called complete. A commit this process holds already (committed()) needs no read.
    let loaded = false;
    const stopCommitted = await busCodecs.telegram.subscribe(bus, ({ serial, record }) => {
      if (!loaded || cache.holds(serial)) return;
      if (!cache.announced(serial, record)) cache.refresh().catch(() => undefined);
    });
    const stopPruned = await busCodecs.pruned.subscribe(bus, ({ serials }) => cache.forget(serials));
    const stop = async () => {
      await stopCommitted();
      await stopPruned();
    };
    const newest = await loadNewestTelegrams(db, cache.maxItems);
    newest.reverse();
    for (const t of newest) cache.add(t);
    cache.completeAbove = newest.length < cache.maxItems ? 0 : newest[0]!.serial - 1;
    cache.trim();
    loaded = true;
    await cache.refresh();
    return { cache, stop };
  }

  /** Highest serial held (0 when none). */
  get newestSerial(): number {
    return this.items.at(-1)?.serial ?? this.completeAbove;
  }

  /** Changes when telegrams are pruned (`forget`): pages and answers derived before may show them. */
  get generation(): number {
    return this.pages.generation;
  }

  /** Whether the telegram with this serial, and every one before it, is known here. */
  holds(serial: number): boolean {
    return serial <= this.newestSerial;
  }

  get(serial: number): TelegramRecord | undefined {
    return this.bySerial.get(serial);
  }

  /** The serial of the held telegram with this id (undefined when not held here). */
  serialOf(id: string): number | undefined {
    return this.serialById.get(id);
  }

  /**
   * Reads whatever was committed after the newest held telegram. One read at a time; every caller
   * gets a read that starts after its call (callers that come while one is queued share it).
   */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.refreshing.then(async () => {
      this.queued = null;
      for (;;) {
        const batch = await loadTelegramsAfter(this.db, this.newestSerial, 500);
        for (const t of batch) this.add(t);
        this.trim();
        if (batch.length < 500) return;
      }
    });
    this.queued = next;
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  /** The newest committed serial (read from the database first). */
  async newest(): Promise<number> {
    await this.refresh();
    return this.newestSerial;
  }

  /**
   * Stored telegrams with serials above `serial`, oldest first (from memory when held). Reads what
   * was committed since the last read first, unless `fresh` is false: the caller knows the cache
   * holds what it wants (holds()).
   */
  async after(serial: number, limit: number, fresh = true): Promise<TelegramRecord[]> {
    if (fresh) await this.refresh();
    if (serial < this.completeAbove) return loadTelegramsAfter(this.db, serial, limit);
    return this.items.slice(this.firstAbove(serial), this.firstAbove(serial) + limit);
  }

  /**
   * Answers a list query from memory when the held range covers it; undefined when the database
   * must answer. Results are newest first, like queryTelegrams.
   */
  query(f: TelegramQuery): TelegramSummary[] | undefined {
    const out: TelegramSummary[] = [];
    if (f.after !== undefined) {
      if (f.after < this.completeAbove) return undefined;
      for (let i = this.firstAbove(f.after); i < this.items.length && out.length < f.limit; i++) {
        if (matches(this.items[i]!, f)) out.push(this.items[i]!);
      }
      return out.reverse();
    }
    let i = f.before === undefined ? this.items.length - 1 : this.firstAbove(f.before - 1) - 1;
    for (; i >= 0 && out.length < f.limit; i--) {
      if (matches(this.items[i]!, f)) out.push(this.items[i]!);
    }
    // Ran out of held telegrams with older ones possibly unseen: the database must answer.
    if (out.length < f.limit && this.completeAbove > 0) return undefined;
    return out;
  }

  /**
   * Drops telegrams that retention deleted (docs/operations.md "Retention"): they were stored, so
   * the invariant holds without them, and no list or delivery shows them again.
   */
  forget(serials: readonly number[]): void {
    this.pages.clear();
    const gone = serials.filter((serial) => this.bySerial.has(serial));
    if (gone.length === 0) return;
    // The newest serial never goes back: refresh reads after it, and lists page from it.
    const newest = this.newestSerial;
    for (const serial of gone) {
      const t = this.bySerial.get(serial)!;
      this.bytes -= heldBytes(t);
      this.bySerial.delete(serial);
      this.serialById.delete(t.id);
    }
    this.items = this.items.filter((t) => this.bySerial.has(t.serial));
    if (this.newestSerial < newest) this.completeAbove = newest;
  }

  /** Index of the first held telegram with a serial above `serial`. */
  private firstAbove(serial: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid]!.serial <= serial) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private add(t: TelegramRecord): void {
    if (this.bySerial.has(t.serial) || t.serial <= this.newestSerial) return;
    this.items.push(t);
    this.bySerial.set(t.serial, t);
    this.serialById.set(t.id, t.serial);
    this.bytes += heldBytes(t);
  }

  private trim(): void {
    while (this.items.length > 1 && (this.items.length > this.maxItems || this.bytes > this.maxBytes)) {
      const old = this.items.shift()!;
      this.bySerial.delete(old.serial);
      this.serialById.delete(old.id);
      this.bytes -= heldBytes(old);
      this.completeAbove = old.serial;
    }
  }
}
