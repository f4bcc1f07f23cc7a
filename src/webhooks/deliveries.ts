/**
 * The delivery queue (docs/webhooks.md "Delivery and retries"): one row per telegram and
 * subscription, claimed by one worker at a time with a lease (`FOR UPDATE SKIP LOCKED`), its
 * outcome recorded under the attempt number it was claimed with, so that a worker whose lease ran
 * out (another took the delivery over) records nothing.
 */
import type { Db, Queryable } from '../db/types.ts';
import type { MentionThreshold } from './formats/mention.ts';
import type { MisskeyVisibility } from './formats/misskey.ts';
import { failPending, subscriptionsChanged } from './subscriptions.ts';

/** Early warnings go first (docs/webhooks.md "Order"). */
export const PRIORITY_EEW = 0;
export const PRIORITY_OTHER = 1;

export function priorityOf(classification: string): number {
  return classification.startsWith('eew.') ? PRIORITY_EEW : PRIORITY_OTHER;
}

/** The `webhook-id` of a telegram's delivery to a subscription: the same on every attempt. */
export function messageIdOf(subscriptionId: number, serial: number): string {
  return `msg_${subscriptionId}_${serial}`;
}

export interface QueuedDelivery {
  subscriptionId: number;
  serial: number;
  priority: number;
  /** Claimed at once for this process's first attempt (handed to the workers after COMMIT, or before it: early-attempts.ts). */
  claim: boolean;
}

/**
 * Queues deliveries (inside the queuer's transaction). A subscription deleted or disabled since the
 * queuer read it is skipped; a delivery already queued is not queued again. The ones marked `claim`
 * are queued claimed by this process, as `claimDue` would claim them (first attempt, leased for
 * `leaseMs`), and returned by id: the first attempt of a fresh telegram needs no claim statement of
 * its own, and the queuer, which holds the subscriptions, makes the rest of each claimed delivery
 * (on the embedded engine, the columns of a thousand rows cost more than inserting them).
 */
export async function queueDeliveries(
  q: Queryable,
  rows: readonly QueuedDelivery[],
  leaseMs: number,
): Promise<{ queued: number; claimed: QueuedClaim[] }> {
  if (rows.length === 0) return { queued: 0, claimed: [] };
  // Counted in the database: a burst queues tens of thousands of rows, whose ids nobody needs here.
  const result = await q.query<{
    n: number;
    id: number | null;
    sub: number;
    serial: number;
    priority: number;
  }>(
    `WITH inserted AS (
       INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, attempts, lease_until,
         next_at, last_attempt_at)
       SELECT x.sub, x.serial, 'msg_' || x.sub || '_' || x.serial, x.priority, CASE WHEN x.claim THEN 1 ELSE 0 END,
         CASE WHEN x.claim THEN now() + $5 * interval '1 millisecond' END,
         CASE WHEN x.claim THEN now() + $5 * interval '1 millisecond' ELSE now() END,
         CASE WHEN x.claim THEN now() END
       FROM unnest($1::int8[], $2::int8[], $3::int2[], $4::bool[]) AS x(sub, serial, priority, claim)
       WHERE x.sub IN (SELECT id FROM webhook_subscriptions WHERE state = 'active')
       ON CONFLICT (subscription_id, serial) DO NOTHING
       RETURNING id, subscription_id, serial, priority, attempts)
     SELECT c.n, i.id, i.subscription_id AS sub, i.serial, i.priority
     FROM (SELECT count(*)::int AS n FROM inserted) c LEFT JOIN inserted i ON i.attempts = 1`,
    [
      rows.map((r) => r.subscriptionId),
      rows.map((r) => r.serial),
      rows.map((r) => r.priority),
      rows.map((r) => r.claim),
      leaseMs,
    ],
  );
  const claimed = result.flatMap((r) =>
    r.id === null ? [] : [{ id: r.id, subscriptionId: r.sub, serial: r.serial, priority: r.priority }],
  );
  return { queued: result[0]!.n, claimed: claimed.sort((a, b) => a.priority - b.priority || a.id - b.id) };
}

/** A delivery queued claimed for this process (its first attempt). */
export interface QueuedClaim {
  id: number;
  subscriptionId: number;
  serial: number;
  priority: number;
}

/** What an attempt needs of its subscription. */
export interface DeliveryTarget {
  url: string;
  host: string;
  format: string;
  lang: 'ja' | 'en';
  secretSealed: string;
  tokenSealed: string | null;
  /** Its own request headers (extra-headers.ts), sealed; null when none. */
  headersSealed: string | null;
  /** The secret a rotation replaced, and until when it signs beside `secretSealed`. */
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  /** The `misskey` format's note options. */
  visibility: MisskeyVisibility | null;
  localOnly: boolean;
  /** `discord` and `slack`: the mention of severe telegrams' posts. */
  mention: string | null;
  mentionOn: MentionThreshold;
}

/** A subscription's target as the database gives it. */
interface TargetRow {
  url: string;
  host: string;
  format: string;
  lang: 'ja' | 'en';
  secret_sealed: string;
  token_sealed: string | null;
  headers_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  visibility: MisskeyVisibility | null;
  local_only: boolean;
  mention: string | null;
  mention_on: MentionThreshold;
}

const toTarget = (r: TargetRow): DeliveryTarget => ({
  url: r.url,
  host: r.host,
  format: r.format,
  lang: r.lang,
  secretSealed: r.secret_sealed,
  tokenSealed: r.token_sealed,
  headersSealed: r.headers_sealed,
  previousSecretSealed: r.previous_secret_sealed,
  previousSecretUntil: r.previous_secret_until,
  visibility: r.visibility,
  localOnly: r.local_only,
  mention: r.mention,
  mentionOn: r.mention_on,
});

export interface ClaimedDelivery extends DeliveryTarget {
  id: number;
  subscriptionId: number;
  /** null for a test event. */
  serial: number | null;
  messageId: string;
  priority: number;
  /** This attempt's number (1 for the first): the fencing token of its outcome. */
  attempt: number;
  /**
   * When it was queued, or queued again by hand (a redelivery, a recovery): its latency counts from
   * then, so that days-old failures delivered again are not days of latency.
   */
  queuedAt: Date;
  /**
   * A first attempt begun before its row committed (early-attempts.ts): resolves to whether the row
   * is there (its `id` then set). Its outcome is recorded only then.
   */
  queued?: Promise<boolean>;
}

interface ClaimRow extends TargetRow {
  id: number;
  subscription_id: number;
  serial: number | null;
  message_id: string;
  priority: number;
  attempts: number;
  retry_from: Date;
}

const toClaimed = (r: ClaimRow): ClaimedDelivery => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  serial: r.serial,
  messageId: r.message_id,
  priority: r.priority,
  attempt: r.attempts,
  queuedAt: r.retry_from,
  ...toTarget(r),
});

const byPriorityThenId = (a: ClaimedDelivery, b: ClaimedDelivery) => a.priority - b.priority || a.id - b.id;

/**
 * Claims up to `limit` due deliveries, early warnings first (or only), then the longest due; skips
 * rows another worker is claiming and the hosts this process already sends its limit to. The claim
 * is a lease: `next_at` moves to its end, so a delivery whose worker died is due again then.
 */
export async function claimDue(
  q: Queryable,
  limit: number,
  leaseMs: number,
  busyHosts: readonly string[],
  earlyWarningsOnly = false,
): Promise<ClaimedDelivery[]> {
  const rows = await q.query<ClaimRow>(
    `UPDATE webhook_deliveries d
     SET attempts = d.attempts + 1, lease_until = now() + $2 * interval '1 millisecond',
       next_at = now() + $2 * interval '1 millisecond', last_attempt_at = now()
     FROM webhook_subscriptions s
     WHERE s.id = d.subscription_id AND d.id IN (
       SELECT p.id FROM webhook_deliveries p JOIN webhook_subscriptions ps ON ps.id = p.subscription_id
       WHERE p.state = 'pending' AND p.next_at <= now() AND ps.host <> ALL($3::text[])
         AND ($4::bool IS FALSE OR p.priority = ${PRIORITY_EEW})
       ORDER BY p.priority, p.next_at
       LIMIT $1
       FOR UPDATE OF p SKIP LOCKED)
     RETURNING d.id, d.subscription_id, d.serial, d.message_id, d.priority, d.attempts, d.retry_from,
       s.url, s.host, s.format, s.lang, s.secret_sealed, s.token_sealed, s.headers_sealed, s.previous_secret_sealed,
       s.previous_secret_until, s.visibility, s.local_only, s.mention, s.mention_on`,
    [limit, leaseMs, busyHosts as string[], earlyWarningsOnly],
  );
  return rows.map(toClaimed).sort(byPriorityThenId);
}

/** What one attempt came to. */
export interface AttemptOutcome {
  ok: boolean;
  /** The response status, when a response came. */
  status: number | null;
  /** Why it failed, in a few words (no secret, no response body). */
  error: string | null;
  durationMs: number;
  /** The receiver's Retry-After, in milliseconds from now. */
  retryAfterMs: number | null;
  /** The start of a refusing response's body, as text (response-excerpt.ts). */
  response?: string | null;
}

export interface RetryPolicy {
  /** First backoff; each retry doubles it (full jitter: a random wait up to it). */
  baseMs: number;
  /** Longest wait between attempts. */
  capMs: number;
  /** Retries go on this long from the queueing (or a redelivery), then the delivery fails. */
  windowMs: number;
  /** A subscription whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
}

/** The wait before retry `attempt` + 1: exponential backoff with full jitter, at least Retry-After. */
export function backoffMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | null,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = Math.max(policy.baseMs / 10, random() * ceiling);
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, policy.capMs));
}

export type Recorded = 'delivered' | 'retry' | 'failed' | 'stale';

/**
 * A failing streak at least this long that ends with a success was the receiver being down, not one
 * delivery it refuses: its backlog is brought forward (`recordDelivered`).
 */
const RECOVERY_STREAK_MS = 60_000;

/**
 * Records a failed attempt, only if this attempt still holds the delivery (successes are recorded
 * together by `recordDelivered`): it is retried later, or failed past its retry window, and the
 * subscription's failing streak goes on (disabled after `disableAfterMs` of it).
 */
export async function recordFailure(
  db: Db,
  d: ClaimedDelivery,
  outcome: AttemptOutcome,
  policy: RetryPolicy,
): Promise<Recorded> {
  const waitMs = backoffMs(policy, d.attempt, outcome.retryAfterMs);
  return db.tx(async (q) => {
    const rows = await q.query<{ state: Recorded }>(
      `UPDATE webhook_deliveries
       SET state = CASE WHEN now() + $6 * interval '1 millisecond' > retry_from + $7 * interval '1 millisecond'
               OR serial IS NULL THEN 'failed'
             ELSE 'pending' END,
         next_at = now() + $6 * interval '1 millisecond', lease_until = NULL,
         last_status = $3, last_error = $4, last_duration_ms = $5, last_response = $8
       WHERE id = $1 AND attempts = $2 AND state = 'pending' AND lease_until IS NOT NULL
       RETURNING CASE state WHEN 'pending' THEN 'retry' ELSE state END AS state`,
      [
        d.id,
        d.attempt,
        outcome.status,
        outcome.error,
        Math.round(outcome.durationMs),
        waitMs,
        policy.windowMs,
        outcome.response ?? null,
      ],
    );
    if (!rows[0]) return 'stale';
    await failing(q, d.subscriptionId, policy.disableAfterMs, policy.windowMs);
    return rows[0].state;
  });
}

/**
 * Starts or continues the subscription's failing streak; disables it past `disableAfterMs`. The
 * streak goes on only if its last failure is within `gapMs` (the retry window: a failing delivery is
 * retried well within it); after a longer quiet, this failure starts a new one.
 */
async function failing(
  q: Queryable,
  subscriptionId: number,
  disableAfterMs: number,
  gapMs: number,
): Promise<void> {
  const [sub] = await q.query<{ disabled: boolean }>(
    `UPDATE webhook_subscriptions s SET failing_since = x.since, last_failed_at = now(),
       state = CASE WHEN x.since < now() - $2 * interval '1 millisecond' THEN 'disabled' ELSE s.state END,
       disabled_reason = CASE WHEN x.since < now() - $2 * interval '1 millisecond'
         THEN 'every delivery failed since ' || to_char(x.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         ELSE s.disabled_reason END
     FROM (SELECT CASE WHEN last_failed_at >= now() - $3 * interval '1 millisecond'
             THEN coalesce(failing_since, now()) ELSE now() END AS since
           FROM webhook_subscriptions WHERE id = $1) x
     WHERE s.id = $1 AND s.state = 'active'
     RETURNING s.state = 'disabled' AS disabled`,
    [subscriptionId, disableAfterMs, gapMs],
  );
  if (sub?.disabled) {
    // Under the queuer's lock first: a slice written meanwhile is committed and failed below.
    await subscriptionsChanged(q);
    await failPending(q, subscriptionId);
  }
}

export interface DeliveryView {
  id: number;
  serial: number | null;
  telegramId: string | null;
  messageId: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  /** The start of the last refusing response's body (none once delivered). */
  lastResponse: string | null;
  lastDurationMs: number | null;
  lastAttemptAt: Date | null;
  nextAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** Which of a subscription's deliveries a read asks for; newest first, `limit` of them. */
export interface DeliveryQuery {
  limit: number;
  /** That one delivery (or none). */
  id?: number;
  state?: DeliveryView['state'];
  /** Only those older than this delivery (the next page of a list). */
  beforeId?: number;
}

/**
 * A state's condition, written out rather than bound: the failed ones are read through their own
 * partial index, which a bound parameter would not let the planner use.
 */
const STATE_IS: Record<DeliveryView['state'], string> = {
  pending: "AND d.state = 'pending'",
  delivered: "AND d.state = 'delivered'",
  failed: "AND d.state = 'failed'",
};

/** The subscription's deliveries the query asks for, newest first. */
export async function recentDeliveries(
  q: Queryable,
  subscriptionId: number,
  query: DeliveryQuery,
): Promise<DeliveryView[]> {
  const rows = await q.query<{
    id: number;
    serial: number | null;
    telegram_id: string | null;
    message_id: string;
    state: DeliveryView['state'];
    attempts: number;
    last_status: number | null;
    last_error: string | null;
    last_response: string | null;
    last_duration_ms: number | null;
    last_attempt_at: Date | null;
    next_at: Date;
    created_at: Date;
    delivered_at: Date | null;
  }>(
    `SELECT d.id, d.serial, t.id AS telegram_id, d.message_id, d.state, d.attempts, d.last_status, d.last_error,
       d.last_response, d.last_duration_ms, d.last_attempt_at, d.next_at, d.created_at, d.delivered_at
     FROM webhook_deliveries d LEFT JOIN telegrams t ON t.serial = d.serial
     WHERE d.subscription_id = $1 AND ($3::int8 IS NULL OR d.id = $3) ${query.state ? STATE_IS[query.state] : ''}
       AND ($4::int8 IS NULL OR d.id < $4)
     ORDER BY d.id DESC LIMIT $2`,
    [subscriptionId, query.limit, query.id ?? null, query.beforeId ?? null],
  );
  return rows.map((r) => ({
    id: r.id,
    serial: r.serial,
    telegramId: r.telegram_id,
    messageId: r.message_id,
    state: r.state,
    attempts: r.attempts,
    lastStatus: r.last_status,
    lastError: r.last_error,
    lastResponse: r.last_response,
    lastDurationMs: r.last_duration_ms,
    lastAttemptAt: r.last_attempt_at,
    nextAt: r.state === 'pending' ? r.next_at : null,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  }));
}

/** The subscription's failed telegram deliveries still kept: how many, and when the oldest was queued. */
export async function failedDeliveries(
  q: Queryable,
  subscriptionId: number,
): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await q.query<{ count: number; oldest: Date | null }>(
    `SELECT count(*)::int AS count, min(created_at) AS oldest FROM webhook_deliveries
     WHERE subscription_id = $1 AND state = 'failed' AND serial IS NOT NULL`,
    [subscriptionId],
  );
  return { count: row!.count, oldest: row!.oldest };
}

/**
 * Queues one of the subscription's telegram deliveries again, now, with a fresh retry window and
 * the same `webhook-id`. False when there is no such delivery, it is a test event, it is pending, or
 * the subscription is disabled (it is enabled again first, docs/webhooks.md). An attempt of it still
 * under way records nothing (no lease): the redelivery is an attempt of its own.
 */
export async function redeliver(q: Queryable, subscriptionId: number, deliveryId: number): Promise<boolean> {
  const rows = await q.query(
    `UPDATE webhook_deliveries SET state = 'pending', next_at = now(), retry_from = now(), lease_until = NULL
     WHERE id = $1 AND subscription_id = $2 AND serial IS NOT NULL AND state <> 'pending'
       AND EXISTS (SELECT 1 FROM webhook_subscriptions WHERE id = $2 AND state = 'active')
     RETURNING id`,
    [deliveryId, subscriptionId],
  );
  return rows.length > 0;
}

/** Deliveries queued again per statement: a recovery of days of failures leaves the connection to others between them. */
const RECOVERY_BATCH = 500;

/**
 * Queues again, now, every failed telegram delivery of the subscription queued in [`from`,
 * `before`) — what a receiver down longer than the retries missed (docs/webhooks.md "Recovering
 * failed deliveries") — each with a fresh retry window and its own `webhook-id`, oldest first, in
 * batches. They go after fresh early warnings: days late, none is urgent any more. None when the
 * subscription is disabled, checked under a share lock of its row, so that a disabling meanwhile
 * waits for the batch and then fails what it queued. Returns how many were queued.
 */
export async function recoverFailed(
  q: Queryable,
  subscriptionId: number,
  range: { from?: Date; before?: Date },
): Promise<number> {
  let recovered = 0;
  let afterId = 0;
  for (;;) {
    const rows = await q.query<{ id: number }>(
      `UPDATE webhook_deliveries SET state = 'pending', next_at = now(), retry_from = now(), lease_until = NULL,
         priority = ${PRIORITY_OTHER}
       WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE subscription_id = $1 AND state = 'failed' AND serial IS NOT NULL AND id > $2
             AND ($3::timestamptz IS NULL OR created_at >= $3) AND ($4::timestamptz IS NULL OR created_at < $4)
           ORDER BY id LIMIT $5)
         AND state = 'failed'
         AND EXISTS (SELECT 1 FROM webhook_subscriptions WHERE id = $1 AND state = 'active' FOR SHARE)
       RETURNING id`,
      [subscriptionId, afterId, range.from ?? null, range.before ?? null, RECOVERY_BATCH],
    );
    // None left (or the subscription disabled meanwhile); a row that changed under a batch is skipped.
    if (rows.length === 0) return recovered;
    recovered += rows.length;
    afterId = Math.max(...rows.map((r) => Number(r.id)));
  }
}

/**
 * Records a test event sent now (not retried), with its outcome; null when the subscription was
 * deleted meanwhile (a deletion under way is waited for).
 */
export async function recordTestEvent(
  q: Queryable,
  subscriptionId: number,
  messageId: string,
  outcome: AttemptOutcome,
): Promise<number | null> {
  const rows = await q.query<{ id: number }>(
    `INSERT INTO webhook_deliveries (subscription_id, serial, message_id, priority, state, attempts, last_status,
       last_error, last_duration_ms, last_attempt_at, delivered_at, last_response)
     SELECT s.id, NULL, $2, 0, $3, 1, $4, $5, $6, now(), CASE WHEN $3 = 'delivered' THEN now() END, $7
     FROM webhook_subscriptions s WHERE s.id = $1 FOR KEY SHARE
     RETURNING id`,
    [
      subscriptionId,
      messageId,
      outcome.ok ? 'delivered' : 'failed',
      outcome.status,
      outcome.error,
      Math.round(outcome.durationMs),
      outcome.response ?? null,
    ],
  );
  return rows[0]?.id ?? null;
}

/**
 * The pending deliveries and how long the oldest has waited, in seconds (the backlog of /metrics):
 * since it was queued, or queued again by hand (a recovery of days-old failures is no backlog of days).
 */
export async function backlog(q: Queryable): Promise<{ pending: number; oldestSeconds: number }> {
  const [row] = await q.query<{ pending: number; oldest: number | null }>(
    `SELECT count(*)::int AS pending, extract(epoch FROM now() - min(retry_from))::float8 AS oldest
     FROM webhook_deliveries WHERE state = 'pending'`,
  );
  return { pending: row!.pending, oldestSeconds: row!.oldest ?? 0 };
}

/**
 * Deletes up to `limit` ended deliveries (delivered or failed) queued more than `keepMs` ago;
 * returns how many (docs/webhooks.md "Operations": delivery records are kept 30 days).
 */
export async function pruneEnded(q: Queryable, keepMs: number, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE state <> 'pending' AND created_at < now() - $1 * interval '1 millisecond'
       LIMIT $2)
       -- Checked again on the row itself: one redelivered meanwhile is pending now, and kept.
       AND state <> 'pending'
     RETURNING id`,
    [keepMs, limit],
  );
  return rows.length;
}

/**
 * Records successful attempts in one statement (the delivery path's common case; a burst to many
 * subscriptions records hundreds at once), each only if its attempt still holds the delivery, and
 * ends their subscriptions' failing streaks. A streak of at least `RECOVERY_STREAK_MS` was the
 * receiver being down: the retries that waited because it could not be reached or was failing (no
 * response, a 5xx, 408 or 429; not another 4xx, a delivery that receiver refuses) become due now,
 * instead of at each one's next backoff, minutes away after an hour (docs/webhooks.md "Delivery and
 * retries"). The streak is read before it is cleared (one snapshot for the statement); the
 * deliveries made due are unleased ones, never the claimed rows the statement records. Returns the
 * ids recorded. A disabled subscription keeps the streak that disabled it (its state says since when
 * it failed): an attempt under way as it was disabled may still succeed.
 */
export async function recordDelivered(
  q: Queryable,
  items: readonly { d: ClaimedDelivery; outcome: AttemptOutcome }[],
): Promise<Set<number>> {
  if (items.length === 0) return new Set();
  const rows = await q.query<{ id: number }>(
    `WITH recorded AS (
       UPDATE webhook_deliveries d
       SET state = 'delivered', delivered_at = now(), lease_until = NULL, last_status = x.status,
         last_error = NULL, last_response = NULL, last_duration_ms = x.ms
       FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::int4[]) AS x(id, attempt, status, ms)
       WHERE d.id = x.id AND d.attempts = x.attempt AND d.state = 'pending' AND d.lease_until IS NOT NULL
       RETURNING d.id, d.subscription_id),
     streaks AS (
       SELECT id, failing_since < now() - $5 * interval '1 millisecond' AS long
       FROM webhook_subscriptions
       WHERE id IN (SELECT subscription_id FROM recorded) AND failing_since IS NOT NULL
         AND state = 'active'),
     ended AS (
       UPDATE webhook_subscriptions s SET failing_since = NULL FROM streaks WHERE s.id = streaks.id),
     recovered AS (
       UPDATE webhook_deliveries SET next_at = now()
       WHERE subscription_id IN (SELECT id FROM streaks WHERE long) AND state = 'pending'
         AND lease_until IS NULL AND next_at > now()
         AND (last_status IS NULL OR last_status >= 500 OR last_status IN (408, 429)))
     SELECT id FROM recorded`,
    [
      items.map((i) => i.d.id),
      items.map((i) => i.d.attempt),
      items.map((i) => i.outcome.status ?? 0),
      items.map((i) => Math.round(i.outcome.durationMs)),
      RECOVERY_STREAK_MS,
    ],
  );
  return new Set(rows.map((r) => r.id));
}
