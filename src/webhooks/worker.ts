/**
 * The delivery workers of one process (docs/webhooks.md "Delivery and retries"): take claimed
 * deliveries (the queuer's first attempts, claimed as it queues them, and what this process claims
 * from the shared queue: retries, and what it could not take at once), post each signed, record its
 * outcome. At most `concurrency` attempts at once and `perHost` to one host; what is claimed and not
 * yet begun is held in the process, early warnings first and hosts in turn, at most `hold` of it and
 * twice `perHost` for one host. A host whose receiver hangs holds `perHost` attempts for at most the
 * attempt's time limit, and its other deliveries stay in the queue for other processes or later;
 * other deliveries never take the last `earlyWarningSlots` slots, and a fresh early warning is taken
 * while a slot is free for it, so dead receivers never hold another subscription's early warning.
 * An attempt posts only while its whole time limit and the time to record its outcome are left of
 * its lease: no other claimer takes the delivery over while it may still be posted or recorded.
 */
import { CoalescedJob } from '../coalesced-job.ts';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/types.ts';
import type { SecretBox } from '../security/sealed.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import {
  PRIORITY_EEW,
  claimDue,
  recordDelivered,
  recordFailure,
  type AttemptOutcome,
  type ClaimedDelivery,
  type Recorded,
  type RetryPolicy,
} from './deliveries.ts';
import { openedHeaders } from './extra-headers.ts';
import type { Payload, PayloadBuilder } from './payload.ts';
import { renderOptionsOf } from './render.ts';
import { requestHeaders, type OutgoingPost, type PostSender } from './sender.ts';
import { signedHeaders, signingKey } from './signing.ts';

export interface WorkerOptions {
  concurrency: number;
  /** Of `concurrency`, the slots only early warnings may use (fewer than `concurrency`). */
  earlyWarningSlots: number;
  perHost: number;
  /** How long a claim holds a delivery (at least an attempt's time limit and `RECORDING_MARGIN_MS`). */
  leaseMs: number;
  /** How often the queue is looked at without a wake-up (retries that came due, other processes' work). */
  pollMs: number;
  /** The time limit of one attempt. */
  timeoutMs: number;
  /** Deliveries claimed and not yet begun that the process holds at most. */
  hold: number;
  policy: RetryPolicy;
}

export interface WorkerEvents {
  attempted(d: ClaimedDelivery, outcome: AttemptOutcome, recorded: Recorded): void;
  inFlight(count: number): void;
  error(err: unknown): void;
}

/** Claimed per statement. */
const CLAIM_BATCH = 256;
/**
 * Deliveries begun in one turn of the event loop, and handed to the sender's thread in one message.
 * Chosen when their requests were written on this loop (a turn that began a hundred held it for
 * about 10 ms; docs/webhooks.md "Operations"); with the requests written on the sender's thread, 64
 * and 128 a turn measured no different (bench/REPORT.md).
 */
const BEGUN_PER_TURN = 16;
/** Outcomes counted (metrics) per turn of the event loop, after their batch is recorded. */
const COUNTED_PER_TURN = 64;
/** Successes recorded per statement, and how long they gather before one is written. */
const SUCCESS_BATCH = 1024;
const SUCCESS_GATHER_MS = 100;
/** Signing keys, tokens and request headers kept opened, by their sealed text (opening each costs a decryption). */
const OPENED_SECRETS = 4096;
/**
 * The end of a claim's lease kept for recording its attempt's outcome: a success waits up to
 * `SUCCESS_GATHER_MS` for its batch's statement, a failure is a transaction of its own, and either
 * may wait for a connection in a burst (on the embedded engine, behind every other statement). An
 * attempt posts only while its whole time limit and this are left of its lease: otherwise the lease
 * could end while the post is under way or its outcome unrecorded, and another claimer (another
 * process, or this one's next claim) would post the delivery again under the same webhook-id.
 */
const RECORDING_MARGIN_MS = 3000;

interface Held {
  d: ClaimedDelivery;
  /** When (performance.now()) its attempt's post must have ended: its lease less the recording margin. */
  deadline: number;
}

/** A sealed secret opened: its text, as a signing key, and (request headers) as parsed once. */
interface Opened {
  key: Buffer;
  text: string;
  headers?: Record<string, string>;
}

/** An attempt's request, ready to post, or the outcome of an attempt that cannot post. */
type Prepared = { post: OutgoingPost } | { outcome: AttemptOutcome };

export class DeliveryWorker {
  private inFlight = 0;
  private readonly hostLoad = new Map<string, number>();
  /** Claim rounds, one at a time: a wake-up during one asks for one more after it. */
  private readonly pumps: CoalescedJob;
  /** Whether the queue may hold due deliveries this process has not claimed (a claim came back full, or a wake-up). */
  private dueLeft = true;
  /** The hosts the last claim skipped (at their limit here): a slot freed for one may find more due. */
  private skipped = new Set<string>();
  private stopped = false;
  /** The next turn's begins, when scheduled. */
  private starting: NodeJS.Immediate | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly attempts = new Set<Promise<void>>();
  /**
   * Claimed and not yet begun: by priority (early warnings first), then by host in turn (a host
   * served goes to the end), each host's in claim order.
   */
  private readonly held = new Map<number, Map<string, Held[]>>();
  private readonly heldByHost = new Map<string, number>();
  private heldCount = 0;
  /** Successes to record together (one statement per flush), and the flush under way. */
  private successes: { d: ClaimedDelivery; outcome: AttemptOutcome }[] = [];
  private flushing: Promise<void> | null = null;
  /** Opened signing keys, tokens and request headers by sealed text (null: sealed under another pepper). */
  private readonly opened = new LRUCache<string, Opened | { unreadable: true }>({ max: OPENED_SECRETS });

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly sender: PostSender,
    private readonly payloads: PayloadBuilder,
    private readonly options: WorkerOptions,
    private readonly events: WorkerEvents,
  ) {
    if (options.leaseMs < options.timeoutMs + RECORDING_MARGIN_MS)
      throw new Error(`leaseMs must be at least timeoutMs + ${RECORDING_MARGIN_MS}`);
    if (options.earlyWarningSlots >= options.concurrency)
      throw new Error('earlyWarningSlots must be fewer than concurrency');
    this.pumps = new CoalescedJob(
      // A round asked for while one ran starts only if there may still be something to claim.
      async () => {
        if (!this.stopped && this.dueLeft) await this.pump();
      },
      (err) => this.events.error(err),
    );
    this.timer = setInterval(() => this.wake(), options.pollMs);
    this.timer.unref();
  }

  /** Something may have come due (queued, redelivered, the poll): claims and sends it, up to the limits. */
  wake(): void {
    this.dueLeft = true;
    this.pumpDue();
  }

  /** Claims while the queue may hold due deliveries (coalesced: one pump at a time). */
  private pumpDue(): void {
    if (this.stopped || !this.dueLeft) return;
    this.pumps.request();
  }

  /**
   * Which of these deliveries-to-be (by their hosts, in the order given, the first `earlyWarnings` of
   * them early warnings) this process would take now, within its limits: the queuer claims those as
   * it queues them and hands them to `take`. An early warning is taken while a slot is free for it
   * even when the hold is full: no backlog of other deliveries keeps it from this process.
   */
  wouldTake(hosts: readonly string[], earlyWarnings: number): boolean[] {
    let room = this.stopped ? 0 : this.room();
    let slots = this.stopped ? 0 : this.slotsForEarlyWarnings();
    const added = new Map<string, number>();
    return hosts.map((host, i) => {
      const early = i < earlyWarnings;
      const n = added.get(host) ?? 0;
      if (room <= 0 && !(early && slots > 0)) return false;
      if (this.hostQueued(host) + n >= 2 * this.options.perHost) return false;
      added.set(host, n + 1);
      room--;
      if (early) slots--;
      return true;
    });
  }

  /**
   * Deliveries claimed for this process (committed): begun where a slot is free, else held.
   * `leasedFrom` (performance.now()) is no later than the start of the statement that claimed them:
   * their leases run from then.
   */
  take(claimed: readonly ClaimedDelivery[], leasedFrom: number): void {
    if (this.stopped) {
      this.release(claimed).catch((err) => this.events.error(err));
      return;
    }
    const deadline = leasedFrom + this.options.leaseMs - RECORDING_MARGIN_MS;
    for (const d of claimed) this.hold({ d, deadline });
    this.startHeld();
  }

  /** Telegrams about to be queued: their bodies are made now, for the first attempts. */
  prepare(records: readonly TelegramRecord[]): void {
    for (const record of records) this.payloads.prime(record);
  }

  /** Stops claiming and waits for the attempts under way to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.starting) clearImmediate(this.starting);
    await this.pumps.idle();
    // An attempt ending may leave its recording under way (one begun before its row committed).
    while (this.attempts.size > 0) await Promise.allSettled([...this.attempts]);
    while (this.flushing) await this.flushing;
    const held = [...this.held.values()].flatMap((byHost) => [...byHost.values()].flat().map((h) => h.d));
    this.held.clear();
    this.heldByHost.clear();
    this.heldCount = 0;
    if (held.length > 0) await this.release(held);
  }

  /** How many more deliveries the process takes now. */
  private room(): number {
    return this.options.concurrency + this.options.hold - this.inFlight - this.heldCount;
  }

  /** Slots free for early warnings beyond those already held. */
  private slotsForEarlyWarnings(): number {
    let held = 0;
    for (const queue of this.held.get(PRIORITY_EEW)?.values() ?? []) held += queue.length;
    return this.options.concurrency - this.inFlight - held;
  }

  /** Whether a whole attempt, its time limit, still fits before the delivery's deadline. */
  private fits(h: Held): boolean {
    return h.deadline - performance.now() >= this.options.timeoutMs;
  }

  /** Under way and held for a host. */
  private hostQueued(host: string): number {
    return (this.hostLoad.get(host) ?? 0) + (this.heldByHost.get(host) ?? 0);
  }

  /** Hosts with their limit under way and as many again held: not claimed for now. */
  private busyHosts(): string[] {
    const full = 2 * this.options.perHost;
    return [...this.hostLoad.keys()].filter((host) => this.hostQueued(host) >= full);
  }

  /**
   * Claims due deliveries while there is room for them. With the hold full, early warnings alone are
   * claimed while a slot is free for them (a retry of one, due again, waits for no backlog).
   */
  private async pump(): Promise<void> {
    while (!this.stopped) {
      const free = this.room();
      const earlyWarningsOnly = free <= 0;
      const asked = Math.min(earlyWarningsOnly ? this.slotsForEarlyWarnings() : free, CLAIM_BATCH);
      if (asked <= 0) return;
      this.dueLeft = false;
      const busy = this.busyHosts();
      this.skipped = new Set(busy);
      const leasedFrom = performance.now();
      const claimed = await claimDue(this.db, asked, this.options.leaseMs, busy, earlyWarningsOnly);
      this.take(claimed, leasedFrom);
      if (claimed.length < asked) return;
      this.dueLeft = true;
    }
  }

  private hold(h: Held): void {
    let byHost = this.held.get(h.d.priority);
    if (!byHost) {
      byHost = new Map();
      this.held.set(h.d.priority, byHost);
    }
    const queue = byHost.get(h.d.host) ?? [];
    if (queue.length === 0) byHost.set(h.d.host, queue);
    queue.push(h);
    this.heldByHost.set(h.d.host, (this.heldByHost.get(h.d.host) ?? 0) + 1);
    this.heldCount++;
  }

  /** Begins held deliveries while slots are free, from the next turn of the event loop on. */
  private startHeld(): void {
    if (this.stopped || this.starting) return;
    this.starting = setImmediate(() => {
      this.starting = null;
      this.startSome();
    });
  }

  /**
   * Begins up to `BEGUN_PER_TURN` held deliveries while slots are free (then again on the next
   * turn): the first priority with a host under its limit, that host's oldest. One held so long
   * that a whole attempt no longer fits in its lease goes back to the queue instead (no other
   * process may send it while this one might).
   */
  private startSome(): void {
    if (this.stopped) return;
    const stale: ClaimedDelivery[] = [];
    const priorities = [...this.held.keys()].sort((a, b) => a - b);
    let begun = 0;
    while (this.inFlight < this.options.concurrency) {
      if (begun === BEGUN_PER_TURN) {
        this.startHeld();
        break;
      }
      const next = this.nextHeld(priorities);
      if (!next) break;
      if (this.fits(next)) this.begin(next);
      else stale.push(next.d);
      begun++;
    }
    if (stale.length > 0) this.release(stale).catch((err) => this.events.error(err));
  }

  /**
   * Takes the next held delivery whose host has a free slot (hosts at their limit are few: skipped);
   * other deliveries than early warnings only while more than `earlyWarningSlots` slots are free.
   */
  private nextHeld(priorities: readonly number[]): Held | null {
    const ordinaryFull = this.inFlight >= this.options.concurrency - this.options.earlyWarningSlots;
    for (const priority of priorities) {
      if (priority !== PRIORITY_EEW && ordinaryFull) break;
      const byHost = this.held.get(priority);
      if (!byHost) continue;
      for (const [host, queue] of byHost) {
        if ((this.hostLoad.get(host) ?? 0) >= this.options.perHost) continue;
        const h = queue.shift()!;
        // The host goes to the end, so that hosts take turns.
        byHost.delete(host);
        if (queue.length > 0) byHost.set(host, queue);
        if (byHost.size === 0) this.held.delete(priority);
        const left = this.heldByHost.get(host)! - 1;
        if (left === 0) this.heldByHost.delete(host);
        else this.heldByHost.set(host, left);
        this.heldCount--;
        return h;
      }
    }
    return null;
  }

  private begin(h: Held): void {
    const { d } = h;
    this.inFlight++;
    this.hostLoad.set(d.host, (this.hostLoad.get(d.host) ?? 0) + 1);
    this.events.inFlight(this.inFlight);
    const attempt = this.attempt(h)
      .catch((err) => this.events.error(err))
      .finally(() => {
        this.inFlight--;
        const load = this.hostLoad.get(d.host)! - 1;
        if (load === 0) this.hostLoad.delete(d.host);
        else this.hostLoad.set(d.host, load);
        this.events.inFlight(this.inFlight);
        this.attempts.delete(attempt);
        // Stopping: what is held goes back to the queue (stop()).
        if (!this.stopped) this.startHeld();
        if (this.skipped.has(d.host) && this.hostQueued(d.host) <= this.options.perHost) this.dueLeft = true;
        this.pumpDue();
      });
    this.attempts.add(attempt);
  }

  private async release(claimed: readonly ClaimedDelivery[]): Promise<void> {
    const ds: ClaimedDelivery[] = [];
    // One begun before its row committed is released once the row is there, if it comes.
    for (const d of claimed) if (d.queued === undefined || (await d.queued)) ds.push(d);
    if (ds.length === 0) return;
    await this.db.query(
      `UPDATE webhook_deliveries d SET attempts = d.attempts - 1, next_at = now(), lease_until = NULL
       FROM unnest($1::int8[], $2::int4[]) AS x(id, attempt)
       WHERE d.id = x.id AND d.attempts = x.attempt AND d.state = 'pending'`,
      [ds.map((d) => d.id), ds.map((d) => d.attempt)],
    );
  }

  private async attempt(h: Held): Promise<void> {
    const { d } = h;
    const prepared = await this.postOf(d);
    // Its body may have taken long (a busy database): no post that could outlive the lease.
    if ('post' in prepared && !this.fits(h)) return this.release([d]);
    const outcome = 'post' in prepared ? await this.sender.send(prepared.post) : prepared.outcome;
    if (d.queued === undefined) return this.record(d, outcome);
    // Posted before its row committed: recorded once the row is there (not at all when it never
    // comes), and the slot is free meanwhile.
    const recording: Promise<void> = d.queued
      .then((there) => (there ? this.record(d, outcome) : undefined))
      .catch((err) => this.events.error(err))
      .finally(() => this.attempts.delete(recording));
    this.attempts.add(recording);
  }

  private async record(d: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    if (outcome.ok) {
      // Recorded with the other successes of the moment; the slot is free at once.
      this.successes.push({ d, outcome });
      this.flushing ??= this.flush();
      return;
    }
    const recorded = await recordFailure(this.db, d, outcome, this.options.policy);
    this.events.attempted(d, outcome, recorded);
  }

  /**
   * Records the successes gathered meanwhile, one statement per batch, until none are left. They
   * gather a moment first: on the embedded engine every statement waits for the one connection.
   */
  private async flush(): Promise<void> {
    if (!this.stopped && this.successes.length < SUCCESS_BATCH)
      await new Promise((resolve) => setTimeout(resolve, SUCCESS_GATHER_MS));
    try {
      while (this.successes.length > 0) {
        const batch = this.successes.splice(0, SUCCESS_BATCH);
        try {
          const recorded = await recordDelivered(this.db, batch);
          for (let i = 0; i < batch.length; i += COUNTED_PER_TURN) {
            if (i > 0) await setImmediatePromise();
            for (const { d, outcome } of batch.slice(i, i + COUNTED_PER_TURN))
              this.events.attempted(d, outcome, recorded.has(d.id) ? 'delivered' : 'stale');
          }
        } catch (err) {
          // Not recorded: the leases end and the deliveries are sent again under the same webhook-id.
          this.events.error(err);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /** A sealed secret opened (kept opened for the next delivery); null when unreadable. */
  private openSealed(sealed: string): Opened | null {
    let found = this.opened.get(sealed);
    if (!found) {
      const text = this.box.open(sealed);
      found = text === null ? { unreadable: true } : { key: signingKey(text), text };
      this.opened.set(sealed, found);
    }
    return 'unreadable' in found ? null : found;
  }

  /** The signed request of an attempt, or why it cannot be made. */
  private async postOf(d: ClaimedDelivery): Promise<Prepared> {
    const failed = (error: string): Prepared => ({
      outcome: { ok: false, status: null, error, durationMs: 0, retryAfterMs: null },
    });
    const secret = this.openSealed(d.secretSealed);
    const token = d.tokenSealed === null ? null : this.openSealed(d.tokenSealed);
    const own = d.headersSealed === null ? null : this.openSealed(d.headersSealed);
    if (
      secret === null ||
      (d.tokenSealed !== null && token === null) ||
      (d.headersSealed !== null && own === null)
    )
      return failed('secret unreadable (NAMAZU_SECRET changed)');
    let payload: Payload | null;
    try {
      payload =
        d.serial === null
          ? null
          : await this.payloads.payloadFor(
              d.serial,
              d.format,
              d.lang,
              renderOptionsOf(token?.text ?? null, d),
            );
    } catch (err) {
      this.events.error(err);
      return failed('payload could not be built');
    }
    if (payload === null) return failed('telegram no longer stored');
    const now = new Date();
    // The secret a rotation replaced signs too while it may (an unreadable one does not).
    const previous =
      d.previousSecretSealed !== null && d.previousSecretUntil !== null && d.previousSecretUntil > now
        ? this.openSealed(d.previousSecretSealed)
        : null;
    const keys = previous === null ? [secret.key] : [secret.key, previous.key];
    const headers = requestHeaders(
      own === null ? null : (own.headers ??= openedHeaders(own.text)),
      payload.headers,
      signedHeaders(keys, d.messageId, payload.body, now),
    );
    return { post: { url: d.url, headers, body: payload.body } };
  }
}
