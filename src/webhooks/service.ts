/**
 * The webhook delivery of one process (docs/webhooks.md): its queuer, woken by the bus's telegram
 * announcements, this process's own commits and a healing timer, and its workers (unless the node
 * leaves delivery to others: `NAMAZU_WEBHOOK_DELIVERY`); the backlog figures of /metrics, the
 * pruning, and the test event that `POST /v2/webhook/:id/test` sends at once.
 */
import { busCodecs } from '../bus/codecs.ts';
import { processServerName, type AppContext } from '../context.ts';
import { SecretBox } from '../security/sealed.ts';
import { backlog, pruneEnded, type RetryPolicy } from './deliveries.ts';
import { PayloadBuilder } from './payload.ts';
import { Queuer } from './queuer.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import type { PostSender } from './sender.ts';
import { ThreadSender } from './sender-thread.ts';
import { anyActiveSubscription, type Subscription } from './subscriptions.ts';
import { sendTestEvent, testTelegram, type TestOutcome } from './test-event.ts';
import { DeliveryWorker } from './worker.ts';

/** Attempts at once per process, and to one host. */
export const MAX_ATTEMPTS_IN_FLIGHT = 128;
export const MAX_ATTEMPTS_PER_HOST = 32;
/**
 * Of the attempts at once, those only early warnings may use (docs/webhooks.md "Order"): other
 * deliveries to receivers that hang hold at most the rest, and an early warning begins at once.
 */
export const EARLY_WARNING_SLOTS = 16;
/** Deliveries a process holds claimed beyond those under way (claimed in batches, begun as slots free). */
const HELD_DELIVERIES = 1024;
/** A kept-alive connection to a receiver is closed after this long unused. */
const IDLE_CONNECTION_MS = 30_000;
/** Response bytes read from a receiver (the rest is not read). */
export const MAX_RESPONSE_BYTES = 8192;
/** Retries go on for a day; a subscription failing for five days is disabled. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
const RETRY_CAP_MS = 3_600_000;
/**
 * The lease of a claim beyond the attempt's time limit. An attempt posts only while its time limit and
 * the time to record its outcome (3 s, worker.ts `RECORDING_MARGIN_MS`) are left of its lease, so
 * this is also how long a claimed delivery may wait in the process before it goes back to the queue
 * (7 s). Kept short rather than lengthened for that wait: it is also how long after its time limit
 * an attempt of a process that died is made again elsewhere (an early warning's included).
 */
const LEASE_MARGIN_MS = 10_000;
/** Looks at the store and the queue this often without a wake-up. */
const HEAL_INTERVAL_MS = 1000;
const POLL_INTERVAL_MS = 500;
/** How often the backlog figures are read. */
const BACKLOG_INTERVAL_MS = 15_000;
/** Ended deliveries (delivered, failed, test events) are kept this long, pruned hourly in small batches. */
export const DELIVERY_RECORDS_KEPT_MS = 30 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const PRUNE_BATCH = 1000;

/** The purpose of the pepper-derived key that seals webhook secrets (security/sealed.ts). */
export const WEBHOOK_SECRET_PURPOSE = 'webhook secrets';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's webhook delivery, decorated by the server's `namazu-webhooks` plugin. */
    webhooks: WebhookService;
  }
}

export interface WebhookService {
  readonly box: SecretBox;
  /**
   * Sends a test event to the subscription now and records it: carrying `telegram`'s post when given,
   * and its mention `withMention`; null when the subscription was deleted meanwhile.
   */
  sendTest(
    subscription: Subscription,
    telegram?: TelegramRecord,
    withMention?: boolean,
  ): Promise<TestOutcome | null>;
  /** A redelivery or a new subscription: look at the queue now. */
  wake(): void;
  /** Resolves once everything committed before the call is queued (tests, benchmarks); at once where this process does not deliver. */
  settled(): Promise<void>;
  /** Stops queueing and waits for the attempts under way (what is left stays queued). */
  stop(): Promise<void>;
}

/**
 * Starts the process's one webhook delivery: the API and the console both act through it (its
 * sender, its secret box), as the app's `webhooks` (plugin.ts); `stop` ends it. With
 * `webhookDelivery` off the process queues and sends nothing (other nodes do): it keeps the API's
 * test events, the backlog figures and the pruning.
 */
export async function startWebhooks(ctx: AppContext): Promise<WebhookService> {
  const { db, config, log } = ctx;
  const onError = (err: unknown) => log.error({ err }, 'webhook delivery failed');
  const box = new SecretBox(ctx.pepper, WEBHOOK_SECRET_PURPOSE);
  const sender = new ThreadSender(
    {
      timeoutMs: config.webhookTimeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      maxSocketsPerHost: MAX_ATTEMPTS_PER_HOST,
      idleMs: IDLE_CONNECTION_MS,
      allowPrivate: config.webhookAllowPrivate,
    },
    onError,
  );
  const stopUpkeep = startUpkeep(ctx, onError);
  const delivery = config.webhookDelivery ? await startDelivery(ctx, box, sender, onError) : null;
  return {
    box,
    sendTest: async (subscription, telegram, withMention) => {
      const carried = telegram ? await testTelegram(db, telegram, processServerName(ctx)) : null;
      return sendTestEvent(db, box, sender, subscription, carried, withMention);
    },
    wake: () => delivery?.worker.wake(),
    settled: async () => {
      await delivery?.queuer.settled();
    },
    async stop() {
      stopUpkeep();
      await delivery?.stop();
      sender.close();
    },
  };
}

/** The queuer and the workers, woken by this process's commits, the bus and a healing timer. */
async function startDelivery(
  ctx: AppContext,
  box: SecretBox,
  sender: ThreadSender,
  onError: (err: unknown) => void,
): Promise<{ queuer: Queuer; worker: DeliveryWorker; stop(): Promise<void> }> {
  // A process with subscriptions to deliver to starts its sender thread now, not at the first early warning.
  if (await anyActiveSubscription(ctx.db)) sender.warm();
  const worker = deliveryWorker(ctx, box, sender, onError);
  const queuer = queuerFor(ctx, worker, onError);
  const healing = setInterval(() => queuer.wake(), HEAL_INTERVAL_MS);
  healing.unref();
  const stopListening = await listenForTelegrams(ctx, queuer);
  queuer.wake();
  worker.wake();
  return {
    queuer,
    worker,
    async stop() {
      clearInterval(healing);
      await stopListening();
      queuer.stop();
      await queuer.settled().catch(onError);
      await worker.stop();
    },
  };
}

/** The workers that claim deliveries and attempt them, counted in /metrics. */
function deliveryWorker(
  ctx: AppContext,
  box: SecretBox,
  sender: PostSender,
  onError: (err: unknown) => void,
): DeliveryWorker {
  const { db, config, log, metrics } = ctx;
  const serverName = processServerName(ctx);
  const policy: RetryPolicy = {
    baseMs: config.webhookRetryBaseMs,
    capMs: RETRY_CAP_MS,
    windowMs: RETRY_WINDOW_MS,
    disableAfterMs: DISABLE_AFTER_MS,
  };
  const priorityName = (p: number) => (p === 0 ? 'eew' : 'other');
  const options = {
    concurrency: MAX_ATTEMPTS_IN_FLIGHT,
    earlyWarningSlots: EARLY_WARNING_SLOTS,
    perHost: MAX_ATTEMPTS_PER_HOST,
    leaseMs: leaseOf(ctx),
    pollMs: POLL_INTERVAL_MS,
    timeoutMs: config.webhookTimeoutMs,
    hold: HELD_DELIVERIES,
    policy,
  };
  return new DeliveryWorker(db, box, sender, new PayloadBuilder(db, serverName), options, {
    attempted(d, outcome, recorded) {
      if (recorded === 'stale') return;
      metrics.webhookAttempts.inc({ outcome: recorded });
      if (recorded === 'delivered')
        metrics.webhookLatency.observe(
          { priority: priorityName(d.priority) },
          (Date.now() - d.queuedAt.getTime()) / 1000,
        );
      if (!outcome.ok)
        log.debug({ delivery: d.id, error: outcome.error, status: outcome.status }, 'webhook attempt failed');
    },
    inFlight: (n) => metrics.webhooksInFlight.set(n),
    error: onError,
  });
}

/** The lease of a claim: the attempt's time limit and a margin. */
function leaseOf(ctx: AppContext): number {
  return ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS;
}

/** The queuer: what the store committed becomes deliveries, handed to the workers as it is queued. */
function queuerFor(ctx: AppContext, worker: DeliveryWorker, onError: (err: unknown) => void): Queuer {
  const cache = ctx.telegrams;
  return new Queuer(
    ctx.db,
    { after: (after, limit) => cache.after(after, limit) },
    {
      wouldTake: (hosts, earlyWarnings) => worker.wouldTake(hosts, earlyWarnings),
      take: (claimed, leasedFrom) => worker.take(claimed, leasedFrom),
      prepare: (records) => worker.prepare(records),
      leaseMs: leaseOf(ctx),
    },
    (count, claimed) => {
      ctx.metrics.webhooksQueued.inc(count);
      // What the workers could not take at once waits in the queue for a claim.
      if (claimed < count) worker.wake();
    },
    onError,
    // The embedded engine has one process, so one queuer: none other could claim what is begun.
    ctx.db.engine === 'pglite',
  );
}

/** The backlog figures of /metrics and the pruning of ended deliveries. */
function startUpkeep(ctx: AppContext, onError: (err: unknown) => void): () => void {
  const { db, metrics } = ctx;
  const readBacklog = () =>
    backlog(db)
      .then(({ pending, oldestSeconds }) => {
        metrics.webhookBacklog.set(pending);
        metrics.webhookBacklogAge.set(oldestSeconds);
      })
      .catch(onError);
  const prune = async () => {
    while (
      !ctx.stopping.aborted &&
      (await pruneEnded(db, DELIVERY_RECORDS_KEPT_MS, PRUNE_BATCH)) === PRUNE_BATCH
    );
  };
  const timers = [
    setInterval(readBacklog, BACKLOG_INTERVAL_MS),
    setInterval(() => prune().catch(onError), PRUNE_INTERVAL_MS),
  ];
  for (const timer of timers) timer.unref();
  return () => timers.forEach(clearInterval);
}

/**
 * This process's commits and the bus's announcements wake the queuer, once the telegram cache holds
 * the telegram (the read it shares with the live delivery) and after the live delivery's turn: its
 * statements, sent beside that read, would delay every socket's copy of the telegram (bench/fanout.sh's
 * first client by 0.2–0.3 ms, with no subscription at all). Resolves to what stops it.
 */
async function listenForTelegrams(ctx: AppContext, queuer: Queuer): Promise<() => Promise<void>> {
  let listening = true;
  const wake = () => {
    if (listening) queuer.wake();
  };
  const wakeAfterLive = () => void setImmediate(wake);
  const stopCommitted = ctx.telegrams.onCommitted(wakeAfterLive);
  const unsubscribe = await busCodecs.telegram.subscribe(ctx.bus, ({ serial }) => {
    // A read that fails wakes it all the same: its round reads again, or its healing timer will.
    ctx.telegrams.catchUp(serial).then(wakeAfterLive, wakeAfterLive);
  });
  return async () => {
    listening = false;
    stopCommitted();
    await unsubscribe();
  };
}
