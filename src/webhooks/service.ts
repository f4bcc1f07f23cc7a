/**
 * The webhook delivery of one process (docs/webhooks.md): its queuer, woken by the bus's telegram
 * announcements, this process's own commits and a healing timer; its workers; the backlog figures of
 * /metrics; and the test event that `POST /v2/webhook/:id/test` sends at once.
 */
import { randomBytes } from 'node:crypto';
import cluster from 'node:cluster';
import { busCodecs } from '../bus/codecs.ts';
import type { AppContext } from '../context.ts';
import { SecretBox } from '../security/sealed.ts';
import { backlog, pruneEnded, recordTestEvent, type AttemptOutcome, type RetryPolicy } from './deliveries.ts';
import { PayloadBuilder, isPostFormat } from './payload.ts';
import { Queuer } from './queuer.ts';
import { renderPost } from './render.ts';
import { Sender } from './sender.ts';
import { secretsOf, type Subscription } from './subscriptions.ts';
import { signedHeaders, signingKey } from './signing.ts';
import { DeliveryWorker } from './worker.ts';

/** Attempts at once per process, and to one host. */
export const MAX_ATTEMPTS_IN_FLIGHT = 128;
export const MAX_ATTEMPTS_PER_HOST = 32;
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
/** The lease of a claim beyond the attempt's time limit (building the body, recording the outcome). */
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

export interface TestOutcome {
  deliveryId: number;
  messageId: string;
  outcome: AttemptOutcome;
}

export interface WebhookService {
  readonly box: SecretBox;
  /** Sends a test event to the subscription now and records it. */
  sendTest(subscription: Subscription): Promise<TestOutcome>;
  /** A redelivery or a new subscription: look at the queue now. */
  wake(): void;
  /** Resolves once everything committed before the call is queued (tests, benchmarks). */
  settled(): Promise<void>;
}

/** The body of a test event: the `data` format names it plainly, a ready-made post is marked as a test. */
function testBody(
  subscription: Subscription,
  messageId: string,
  now: Date,
  token: string | null,
): { headers: Record<string, string>; body: string } {
  if (!isPostFormat(subscription.format)) {
    const body = {
      type: 'webhook.test',
      version: '2.0',
      id: messageId,
      webhook: subscription.id,
      time: now.toISOString(),
    };
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }
  const summary = {
    type: 'TEST',
    category: 'other' as const,
    title: subscription.lang === 'ja' ? 'Namazu webhook のテスト' : 'Namazu webhook test',
    mark: 'test' as const,
    infoType: '発表',
    severity: 'low' as const,
    reportTime: now.toISOString(),
    eventId: null,
    headline:
      subscription.lang === 'ja' ? 'これは webhook のテスト送信です。' : 'This is a test of the webhook.',
    text: null,
    facts: { kind: 'plain' as const },
  };
  return renderPost(
    subscription.format,
    summary,
    subscription.lang,
    token === null ? {} : { misskey: { token } },
  );
}

/** The delivery started for each running process's context, by the first surface that needs it. */
const started = new WeakMap<AppContext, Promise<WebhookService>>();

/**
 * The process's one webhook delivery: the API and the console both act through it (its sender, its
 * secret box), and it is started once, by whichever registers first.
 */
export function webhookService(ctx: AppContext): Promise<WebhookService> {
  let service = started.get(ctx);
  if (!service) {
    service = startWebhooks(ctx);
    started.set(ctx, service);
  }
  return service;
}

export async function startWebhooks(ctx: AppContext): Promise<WebhookService> {
  const { db, config, log, metrics } = ctx;
  const onError = (err: unknown) => log.error({ err }, 'webhook delivery failed');
  const box = new SecretBox(ctx.pepper, WEBHOOK_SECRET_PURPOSE);
  const serverName = cluster.isWorker ? `${config.serverName}#${cluster.worker!.id}` : config.serverName;
  const sender = new Sender({
    timeoutMs: config.webhookTimeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    maxSocketsPerHost: MAX_ATTEMPTS_PER_HOST,
    idleMs: IDLE_CONNECTION_MS,
    allowPrivate: config.webhookAllowPrivate,
  });
  const policy: RetryPolicy = {
    baseMs: config.webhookRetryBaseMs,
    capMs: RETRY_CAP_MS,
    windowMs: RETRY_WINDOW_MS,
    disableAfterMs: DISABLE_AFTER_MS,
  };
  const priorityName = (p: number) => (p === 0 ? 'eew' : 'other');
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const worker = new DeliveryWorker(
    db,
    box,
    sender,
    new PayloadBuilder(db, serverName),
    {
      concurrency: MAX_ATTEMPTS_IN_FLIGHT,
      perHost: MAX_ATTEMPTS_PER_HOST,
      leaseMs,
      pollMs: POLL_INTERVAL_MS,
      timeoutMs: config.webhookTimeoutMs,
      hold: HELD_DELIVERIES,
      policy,
    },
    {
      attempted(d, outcome, recorded) {
        if (recorded === 'stale') return;
        metrics.webhookAttempts.inc({ outcome: recorded });
        if (recorded === 'delivered')
          metrics.webhookLatency.observe(
            { priority: priorityName(d.priority) },
            (Date.now() - d.createdAt.getTime()) / 1000,
          );
        if (!outcome.ok)
          log.debug(
            { delivery: d.id, error: outcome.error, status: outcome.status },
            'webhook attempt failed',
          );
      },
      inFlight: (n) => metrics.webhooksInFlight.set(n),
      error: onError,
    },
  );
  const cache = ctx.telegrams;
  const queuer = new Queuer(
    db,
    { after: (after, limit) => cache.after(after, limit) },
    { wouldTake: (hosts) => worker.wouldTake(hosts), take: (claimed) => worker.take(claimed), leaseMs },
    (count, claimed) => {
      metrics.webhooksQueued.inc(count);
      // What the workers could not take at once waits in the queue for a claim.
      if (claimed < count) worker.wake();
    },
    onError,
  );
  const healing = setInterval(() => queuer.wake(), HEAL_INTERVAL_MS);
  healing.unref();
  const readBacklog = () =>
    backlog(db)
      .then(({ pending, oldestSeconds }) => {
        metrics.webhookBacklog.set(pending);
        metrics.webhookBacklogAge.set(oldestSeconds);
      })
      .catch(onError);
  const backlogTimer = setInterval(readBacklog, BACKLOG_INTERVAL_MS);
  backlogTimer.unref();
  const prune = async () => {
    while (
      !ctx.stopping.aborted &&
      (await pruneEnded(db, DELIVERY_RECORDS_KEPT_MS, PRUNE_BATCH)) === PRUNE_BATCH
    );
  };
  const pruneTimer = setInterval(() => prune().catch(onError), PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  const stopCommitted = cache.onCommitted(() => queuer.wake());
  const unsubscribe = [
    await busCodecs.telegram.subscribe(ctx.bus, () => queuer.wake()),
    await busCodecs.contracts.subscribe(ctx.bus, () => {
      queuer.forget();
      queuer.wake();
    }),
  ];
  queuer.wake();
  worker.wake();

  ctx.onShutdown.push(async () => {
    clearInterval(healing);
    clearInterval(backlogTimer);
    clearInterval(pruneTimer);
    stopCommitted();
    for (const off of unsubscribe) await off();
    queuer.stop();
    await queuer.settled().catch(onError);
    await worker.stop();
    sender.close();
  });

  return {
    box,
    async sendTest(subscription) {
      const messageId = `msg_test_${randomBytes(12).toString('base64url')}`;
      const secrets = await secretsOf(db, box, subscription.id);
      let outcome: AttemptOutcome;
      if (!secrets?.secret) {
        outcome = {
          ok: false,
          status: null,
          error: 'secret unreadable (NAMAZU_SECRET changed)',
          durationMs: 0,
          retryAfterMs: null,
        };
      } else {
        const now = new Date();
        const post = testBody(subscription, messageId, now, secrets.token);
        const body = Buffer.from(post.body);
        const headers = {
          ...post.headers,
          'user-agent': 'Namazu-Webhooks/1',
          ...signedHeaders(signingKey(secrets.secret), messageId, body, now),
        };
        outcome = await sender.send({ url: subscription.url, headers, body });
      }
      const deliveryId = await recordTestEvent(db, subscription.id, messageId, outcome);
      return { deliveryId, messageId, outcome };
    },
    wake: () => worker.wake(),
    settled: () => queuer.settled(),
  };
}
