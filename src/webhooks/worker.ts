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
const CLAIM_BATCH = 64;

export class DeliveryWorker {
  private inFlight = 0;
  private readonly hostLoad = new Map<string, number>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  private readonly attempts = new Set<Promise<void>>();

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
  }

  private busyHosts(): string[] {
    return [...this.hostLoad].filter(([, n]) => n >= this.options.perHost).map(([host]) => host);
  }

  private async pump(): Promise<void> {
    while (!this.stopped) {
      const free = this.options.concurrency - this.inFlight;
      if (free <= 0) return;
      const asked = Math.min(free, CLAIM_BATCH);
      const claimed = await claimDue(this.db, asked, this.options.leaseMs, this.busyHosts());
      const over: ClaimedDelivery[] = [];
      for (const d of claimed) {
        if ((this.hostLoad.get(d.host) ?? 0) >= this.options.perHost) over.push(d);
        else this.begin(d);
      }
      // Claimed beyond a host's limit in this batch: back to the queue at once, as they were.
      if (over.length > 0) await this.release(over);
      if (claimed.length < asked || over.length > 0) return;
    }
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
        this.wake();
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
    const recorded = await recordOutcome(this.db, d, outcome, this.options.policy);
    this.events.attempted(d, outcome, recorded);
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
