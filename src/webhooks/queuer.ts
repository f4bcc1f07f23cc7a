/**
 * Queues the telegrams committed for the subscriptions that match them (docs/webhooks.md
 * "Durability"). Like the real-time delivery it follows the serial-ordered store from a position,
 * but the position is stored: one round reads the telegrams after `webhook_position`, matches each
 * against the active subscriptions (`matches`, the one predicate of every delivery path), and
 * inserts the deliveries in slices, one transaction each under an advisory lock that one process at
 * a time holds, the last one advancing the position. A crash before that COMMIT moves nothing; the
 * next round, in any process, starts from the same position and queues what is missing (the unique
 * key skips what is queued). Woken by the bus's announcements and a healing timer, as the
 * dispatcher is. The first attempts this process's workers can take at once are queued claimed for
 * them and handed over after each slice's COMMIT (no claim statement between a telegram's commit
 * and its first posts), or, on the embedded engine, as soon as they are matched (early-attempts.ts);
 * the rest wait in the queue for whichever process claims them.
 */
import { setImmediate } from 'node:timers/promises';
import { CoalescedJob } from '../coalesced-job.ts';
import type { Db } from '../db/types.ts';
import { compileFilter, matches, type CompiledFilter } from '../realtime/filter.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import {
  PRIORITY_EEW,
  messageIdOf,
  priorityOf,
  queueDeliveries,
  type ClaimedDelivery,
  type DeliveryTarget,
  type QueuedClaim,
  type QueuedDelivery,
} from './deliveries.ts';
import { EarlyAttempts } from './early-attempts.ts';
import { activeSubscriptions } from './subscriptions.ts';

/**
 * The advisory lock key of the queuer ('nzwh'): every change of the subscriptions takes it too
 * (`move_webhook_subscriptions_version()`, migration 163), so none happens while a slice is written.
 */
export const QUEUE_LOCK_KEY = 0x6e7a7768;
/** Telegrams read and queued per round (to a thousand subscriptions: 16,000 rows). */
const BATCH = 16;
/** How soon to try again when another process held the lock (it may have read before our commit). */
const BUSY_RETRY_MS = 25;
/**
 * Rows queued by a round's first transaction, each next one twice as many: the first about what the
 * workers begin at once, so that a fresh telegram's first posts wait for a short insert (on the
 * embedded engine 1,000 rows took some 50 ms, 128 about 7), and the next slices are committed while
 * those are under way.
 */
const FIRST_SLICE = 128;
/** Rows queued per transaction at most. */
const SLICE = 1024;
/** Rows matched in one turn of the event loop. */
const MATCHED_PER_TURN = 1024;

export interface QueueSource {
  /** Stored telegrams with serials above `after`, oldest first, at most `limit`. */
  after(after: number, limit: number): Promise<TelegramRecord[]>;
}

/** The workers of this process, as the queuer hands them first attempts. */
export interface FirstAttempts {
  /**
   * Which of these deliveries-to-be (by host, in order; the first `earlyWarnings` of them early
   * warnings) the workers would take now.
   */
  wouldTake(hosts: readonly string[], earlyWarnings: number): boolean[];
  /**
   * The deliveries claimed for them, once committed (or before, each with `queued`); `leasedFrom`
   * (performance.now()) is taken before the transaction that claims them begins, so their leases run
   * from no earlier.
   */
  take(claimed: readonly ClaimedDelivery[], leasedFrom: number): void;
  /** Telegrams about to be queued: their bodies are made while the queue is written. */
  prepare(records: readonly TelegramRecord[]): void;
  /** The lease of a claim. */
  leaseMs: number;
}

interface Position {
  serial: number;
  version: number;
}

interface Group {
  filter: CompiledFilter;
  subscriptions: { id: number; host: string; fromSerial: number }[];
}

export class Queuer {
  /** Queueing rounds, one at a time: a wake-up during one asks for one more after it. */
  private readonly rounds: CoalescedJob;
  /** The active subscriptions grouped by filter, and the version they were read at. */
  private groups: Group[] = [];
  /** What an attempt needs of each active subscription, read with the groups. */
  private targets = new Map<number, DeliveryTarget>();
  private version = -1;
  private retry: NodeJS.Timeout | null = null;
  /** First attempts begun before their rows commit; null where they wait for the COMMIT. */
  private readonly early: EarlyAttempts | null;

  constructor(
    private readonly db: Db,
    private readonly source: QueueSource,
    private readonly workers: FirstAttempts,
    /** Told how many deliveries a round queued and how many of them it claimed (counts them, wakes the workers). */
    private readonly onQueued: (count: number, claimed: number) => void,
    onError: (err: unknown) => void,
    /** Whether first attempts begin before their rows commit (only where this is the one queuer). */
    beginBeforeCommit = false,
  ) {
    this.rounds = new CoalescedJob(() => this.drain(), onError);
    this.early = beginBeforeCommit ? new EarlyAttempts() : null;
  }

  /** Queues whatever was committed after the stored position (coalesced: one round at a time). */
  wake(): void {
    this.rounds.request();
  }

  /** Resolves once everything committed before the call is queued by this process or another. */
  async settled(): Promise<void> {
    this.wake();
    await this.rounds.idle();
  }

  stop(): void {
    if (this.retry) clearTimeout(this.retry);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const outcome = await this.round().catch((err: unknown) => {
        this.early?.abandon();
        throw err;
      });
      // Only the next round (at once, from the same position) may still queue what was begun.
      if (outcome !== 'more') this.early?.abandon();
      if (outcome === 'busy') {
        this.retry ??= setTimeout(() => {
          this.retry = null;
          this.wake();
        }, BUSY_RETRY_MS);
        return;
      }
      if (outcome === 'done') return;
    }
  }

  /**
   * One batch: `more` when it was full or the position moved under it, `busy` when another process
   * queues. Its rows are queued in slices of `FIRST_SLICE`, then twice as many each time up to
   * `SLICE` (early warnings first), one transaction each, whose claimed rows go to the workers on its
   * commit; the last moves the position. A crash between slices leaves the position where it was: the
   * next round queues the batch again, and `UNIQUE (subscription, serial)` skips the rows queued.
   */
  private async round(): Promise<'done' | 'more' | 'busy'> {
    const [seen] = await this.db.query<Position>(
      'SELECT serial, subscriptions_version AS version FROM webhook_position',
    );
    const records = await this.source.after(seen!.serial, BATCH);
    if (records.length === 0) return 'done';
    if (seen!.version !== this.version) await this.readSubscriptions(seen!.version);
    const rows = await this.deliveriesOf(records);
    const delivered = new Set(rows.map((r) => r.serial));
    this.workers.prepare(records.filter((r) => delivered.has(r.serial)));
    if (this.early) {
      const begun = this.early.begin(rows, (row, queued) => this.deliveryOf(row, 0, queued));
      if (begun.length > 0) this.workers.take(begun, performance.now());
    }
    const last = records[records.length - 1]!.serial;
    let from = 0;
    let size = FIRST_SLICE;
    do {
      const to = from + size;
      size = Math.min(2 * size, SLICE);
      const outcome = await this.queueSlice(seen!, rows.slice(from, to), to >= rows.length ? last : null);
      if (outcome !== 'queued') return outcome;
      from = to;
    } while (from < rows.length);
    this.early?.batchQueued();
    return records.length < BATCH ? 'done' : 'more';
  }

  /** One transaction: queues `rows` if the position is still `seen`, and moves it to `moveTo` if given. */
  private async queueSlice(
    seen: Position,
    rows: readonly QueuedDelivery[],
    moveTo: number | null,
  ): Promise<'queued' | 'more' | 'busy'> {
    const leasedFrom = performance.now();
    const outcome = await this.db.tx(async (q) => {
      const [lock] = await q.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS got', [
        QUEUE_LOCK_KEY,
      ]);
      if (!lock!.got) return 'busy' as const;
      // Under the lock: what this round read is still where the queue stands.
      const [now] = await q.query<Position>(
        'SELECT serial, subscriptions_version AS version FROM webhook_position',
      );
      if (now!.serial !== seen.serial || now!.version !== seen.version) return 'more' as const;
      const queued = await queueDeliveries(q, rows, this.workers.leaseMs);
      // Moved only if the subscriptions are still those matched: one created meanwhile (its version
      // bump committed or still holding the row) may be owed a telegram of this batch.
      const moved =
        moveTo === null ||
        (
          await q.query(
            'UPDATE webhook_position SET serial = $1 WHERE subscriptions_version = $2 RETURNING 1',
            [moveTo, seen.version],
          )
        ).length > 0;
      return { ...queued, moved };
    });
    if (typeof outcome === 'string') return outcome;
    const claimed = this.early ? this.early.committed(rows, outcome.claimed) : outcome.claimed;
    if (claimed.length > 0) this.workers.take(this.claimedDeliveries(claimed), leasedFrom);
    if (outcome.queued > 0) this.onQueued(outcome.queued, outcome.claimed.length);
    return outcome.moved ? 'queued' : 'more';
  }

  /**
   * The deliveries queued claimed for this process, whole. One whose subscription was not read with
   * the groups (none should be: the version guards them) waits for its lease to end.
   */
  private claimedDeliveries(claimed: readonly QueuedClaim[]): ClaimedDelivery[] {
    return claimed.flatMap((c) => this.deliveryOf(c, c.id) ?? []);
  }

  /** The first attempt of a row with its subscription's target; null when the subscription was not read. */
  private deliveryOf(
    row: { subscriptionId: number; serial: number; priority: number },
    id: number,
    queued?: Promise<boolean>,
  ): ClaimedDelivery | null {
    const target = this.targets.get(row.subscriptionId);
    if (!target) return null;
    const { subscriptionId, serial, priority } = row;
    const messageId = messageIdOf(subscriptionId, serial);
    // One spread: V8 copies a second one into a new object slowly (some 10 µs a delivery, on an
    // early warning's way to its first attempt).
    const queuedAt = new Date();
    const d: ClaimedDelivery = {
      id,
      subscriptionId,
      serial,
      priority,
      ...target,
      messageId,
      attempt: 1,
      queuedAt,
    };
    if (queued) d.queued = queued;
    return d;
  }

  /** The groups and the targets, from one read of the active subscriptions. */
  private async readSubscriptions(version: number): Promise<void> {
    const byKey = new Map<string, Group>();
    const targets = new Map<number, DeliveryTarget>();
    for (const s of await activeSubscriptions(this.db)) {
      const filter = compileFilter(s.filter);
      let group = byKey.get(filter.key);
      if (!group) byKey.set(filter.key, (group = { filter, subscriptions: [] }));
      group.subscriptions.push({ id: s.id, host: s.host, fromSerial: s.fromSerial });
      // What an attempt needs of it: the DeliveryTarget fields, and no others of the subscription.
      const { url, host, format, lang, secretSealed, tokenSealed, visibility, localOnly } = s;
      const { previousSecretSealed, previousSecretUntil, headersSealed } = s;
      const sealed = { secretSealed, tokenSealed, headersSealed, previousSecretSealed, previousSecretUntil };
      const { mention, mentionOn } = s;
      targets.set(s.id, { url, host, format, lang, ...sealed, visibility, localOnly, mention, mentionOn });
    }
    this.groups = [...byKey.values()];
    this.targets = targets;
    this.version = version;
  }

  /**
   * Every (subscription, telegram) that matches, early warnings first, each kind in queueing order:
   * one test per filter group and telegram; those the workers would take now marked to be claimed
   * for them. A batch to many subscriptions makes tens of thousands of rows: the event loop is let go
   * every `MATCHED_PER_TURN` of them.
   */
  private async deliveriesOf(records: readonly TelegramRecord[]): Promise<QueuedDelivery[]> {
    const kinds = { eew: [] as QueuedDelivery[], other: [] as QueuedDelivery[] };
    const hostsOf = { eew: [] as string[], other: [] as string[] };
    let sinceTurn = 0;
    for (const record of records) {
      const priority = priorityOf(record.classification);
      const kind = priority === PRIORITY_EEW ? 'eew' : 'other';
      for (const group of this.groups) {
        if (!matches(group.filter, record)) continue;
        for (const s of group.subscriptions) {
          // A subscription receives the telegrams committed after its creation.
          if (record.serial > s.fromSerial) {
            kinds[kind].push({ subscriptionId: s.id, serial: record.serial, priority, claim: false });
            hostsOf[kind].push(s.host);
            sinceTurn++;
          }
        }
      }
      if (sinceTurn >= MATCHED_PER_TURN) {
        sinceTurn = 0;
        await setImmediate();
      }
    }
    const rows = kinds.eew.concat(kinds.other);
    const taken = this.workers.wouldTake(hostsOf.eew.concat(hostsOf.other), hostsOf.eew.length);
    rows.forEach((row, i) => (row.claim = taken[i]!));
    return rows;
  }
}
