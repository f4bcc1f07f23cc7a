/**
 * The delivery workers of one process (docs/webhooks.md "Delivery and retries"): claim due
 * deliveries from the shared queue (early warnings first), post each signed, record its outcome.
 * At most `concurrency` attempts at once and `perHost` to one host: a host whose receiver hangs
 * holds `perHost` attempts for at most the attempt's time limit, and its other deliveries stay in
 * the queue for other processes or later, so a dead receiver never holds another subscription's
 * early warning.
 */
import type { Db } from '../db/types.ts';
import type { SecretBox } from '../security/sealed.ts';
import { Webhook } from 'standardwebhooks';
import {
  claimDue,
  recordDelivered,
  recordOutcome,
  type AttemptOutcome,
  type ClaimedDelivery,
  type Recorded,
  type RetryPolicy,
} from './deliveries.ts';
import type { Payload, PayloadBuilder } from './payload.ts';
import type { Sender } from './sender.ts';

export interface WorkerOptions {
  concurrency: number;
  perHost: number;
  /** How long a claim holds a delivery (longer than an attempt's time limit). */
  leaseMs: number;
  /** How often the queue is looked at without a wake-up (retries that came due, other processes' work). */
  pollMs: number;
  /** The time limit of one attempt. */
  timeoutMs: number;
  policy: RetryPolicy;
}

export interface WorkerEvents {
  attempted(d: ClaimedDelivery, outcome: AttemptOutcome, recorded: Recorded): void;
  inFlight(count: number): void;
  error(err: unknown): void;
}

/** The Standard Webhooks headers of one attempt. */
export function signedHeaders(
  secret: string,
  messageId: string,
  body: Buffer,
  at: Date,
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

const USER_AGENT = 'Namazu-Webhooks/1';
/** Claimed per statement. */
const CLAIM_BATCH = 128;
/** Successes recorded per statement. */
const SUCCESS_BATCH = 512;

export class DeliveryWorker {
  private inFlight = 0;
  private readonly hostLoad = new Map<string, number>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  private readonly attempts = new Set<Promise<void>>();
  /** Claimed for a host that has its limit of attempts under way, with when they were claimed. */
  private readonly waiting = new Map<string, { d: ClaimedDelivery; claimedAt: number }[]>();
  private waitingCount = 0;
  /** Successes to record together (one statement per flush), and the flush under way. */
  private successes: { d: ClaimedDelivery; outcome: AttemptOutcome }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly sender: Sender,
    private readonly payloads: PayloadBuilder,
    private readonly options: WorkerOptions,
    private readonly events: WorkerEvents,
  ) {
    this.timer = setInterval(() => this.wake(), options.pollMs);
    this.timer.unref();
  }

  /** Claims and sends what is due, up to the limits (coalesced). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err) => this.events.error(err))
      .finally(() => {
        this.pumping = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming and waits for the attempts under way to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.pumping) await this.pumping;
    await Promise.allSettled([...this.attempts]);
    while (this.flushing) await this.flushing;
    const waiting = [...this.waiting.values()].flat().map((w) => w.d);
    this.waiting.clear();
    this.waitingCount = 0;
    if (waiting.length > 0) await this.release(waiting);
  }

  /** Hosts with their limit under way and as many again waiting: not claimed for now. */
  private busyHosts(): string[] {
    const full = 2 * this.options.perHost;
    return [...this.hostLoad]
      .filter(([host, n]) => n + (this.waiting.get(host)?.length ?? 0) >= full)
      .map(([host]) => host);
  }

  private async pump(): Promise<void> {
    while (!this.stopped) {
      const free = this.options.concurrency - this.inFlight - this.waitingCount;
      if (free <= 0) return;
      const asked = Math.min(free, CLAIM_BATCH);
      const claimed = await claimDue(this.db, asked, this.options.leaseMs, this.busyHosts());
      const claimedAt = performance.now();
      for (const d of claimed) {
        if ((this.hostLoad.get(d.host) ?? 0) < this.options.perHost) this.begin(d);
        else {
          const queue = this.waiting.get(d.host) ?? [];
          this.waiting.set(d.host, queue);
          queue.push({ d, claimedAt });
          this.waitingCount++;
        }
      }
      if (claimed.length < asked) return;
    }
  }

  /**
   * The next delivery waiting for `host`, when one is. One that waited so long that its lease would
   * end before its attempt could goes back to the queue instead (no other process may send it while
   * this one might).
   */
  private async next(host: string): Promise<void> {
    // Stopping: what waits goes back to the queue (stop()).
    if (this.stopped) return;
    const queue = this.waiting.get(host);
    const stale: ClaimedDelivery[] = [];
    const limit = this.options.leaseMs - this.options.timeoutMs - 1000;
    while (queue && queue.length > 0) {
      const { d, claimedAt } = queue.shift()!;
      this.waitingCount--;
      if (performance.now() - claimedAt > limit) stale.push(d);
      else {
        this.begin(d);
        break;
      }
    }
    if (queue?.length === 0) this.waiting.delete(host);
    if (stale.length > 0) await this.release(stale);
  }

  private begin(d: ClaimedDelivery): void {
    this.inFlight++;
    this.hostLoad.set(d.host, (this.hostLoad.get(d.host) ?? 0) + 1);
    this.events.inFlight(this.inFlight);
    const attempt = this.attempt(d)
      .catch((err) => this.events.error(err))
      .finally(() => {
        this.inFlight--;
        const load = this.hostLoad.get(d.host)! - 1;
        if (load === 0) this.hostLoad.delete(d.host);
        else this.hostLoad.set(d.host, load);
        this.events.inFlight(this.inFlight);
        this.attempts.delete(attempt);
        this.next(d.host)
          .catch((err) => this.events.error(err))
          .finally(() => this.wake());
      });
    this.attempts.add(attempt);
  }

  private async release(ds: readonly ClaimedDelivery[]): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries d SET attempts = d.attempts - 1, next_at = now(), lease_until = NULL
       FROM unnest($1::int8[], $2::int4[]) AS x(id, attempt)
       WHERE d.id = x.id AND d.attempts = x.attempt AND d.state = 'pending'`,
      [ds.map((d) => d.id), ds.map((d) => d.attempt)],
    );
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const outcome = await this.send(d);
    if (outcome.ok) {
      // Recorded with the other successes of the moment; the slot is free at once.
      this.successes.push({ d, outcome });
      this.flushing ??= this.flush();
      return;
    }
    const recorded = await recordOutcome(this.db, d, outcome, this.options.policy);
    this.events.attempted(d, outcome, recorded);
  }

  /** Records the successes gathered meanwhile, one statement per batch, until none are left. */
  private async flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.successes.length > 0) {
        const batch = this.successes.splice(0, SUCCESS_BATCH);
        try {
          const recorded = await recordDelivered(this.db, batch);
          for (const { d, outcome } of batch)
            this.events.attempted(d, outcome, recorded.has(d.id) ? 'delivered' : 'stale');
        } catch (err) {
          // Not recorded: the leases end and the deliveries are sent again under the same webhook-id.
          this.events.error(err);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private async send(d: ClaimedDelivery): Promise<AttemptOutcome> {
    const failed = (error: string): AttemptOutcome => ({
      ok: false,
      status: null,
      error,
      durationMs: 0,
      retryAfterMs: null,
    });
    const secret = this.box.open(d.secretSealed);
    const token = d.tokenSealed === null ? null : this.box.open(d.tokenSealed);
    if (secret === null || (d.tokenSealed !== null && token === null))
      return failed('secret unreadable (NAMAZU_SECRET changed)');
    let payload: Payload | null;
    try {
      payload = d.serial === null ? null : await this.payloads.payloadFor(d.serial, d.format, d.lang, token);
    } catch (err) {
      this.events.error(err);
      return failed('payload could not be built');
    }
    if (payload === null) return failed('telegram no longer stored');
    const headers = {
      ...payload.headers,
      'user-agent': USER_AGENT,
      ...signedHeaders(secret, d.messageId, payload.body, new Date()),
    };
    return this.sender.send({ url: d.url, headers, body: payload.body });
  }
}
