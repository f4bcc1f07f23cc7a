/**
 * Webhook subscriptions of accounts (docs/webhooks.md "Subscriptions"): created with a signing
 * secret shown once, listed, read, deleted; the secrets sealed at rest (security/sealed.ts).
 */
import { randomBytes } from 'node:crypto';
import { contractedClassifications } from '../accounts/contracts.ts';
import { planById } from '../accounts/plans.ts';
import type { Db, Queryable } from '../db/types.ts';
import type { MentionThreshold } from './formats/mention.ts';
import type { MisskeyVisibility } from './formats/misskey.ts';
import type { SecretBox } from '../security/sealed.ts';
import type { DeliveryFilter } from '../realtime/filter.ts';
import { openedHeaders, sealHeaders, type ExtraHeaders } from './extra-headers.ts';
import type { Intensity } from '../telegrams/facts.ts';

/** The body each subscription is sent: the `data` message, or a ready-made post. */
export const WEBHOOK_FORMATS = ['namazu', 'discord', 'slack', 'ntfy', 'misskey'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Subscriptions one account may hold (docs/webhooks.md "Limits"). */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 20;

export interface SubscriptionSpec {
  url: string;
  classifications: string[];
  types: string[] | null;
  test: 'no' | 'including';
  formatMode: 'raw' | 'json';
  areas: string[] | null;
  minIntensity: Intensity | null;
  format: WebhookFormat;
  lang: 'ja' | 'en';
  /** The `misskey` format's access token. */
  token: string | null;
  /** The `misskey` format's note visibility (null for the other formats). */
  visibility: MisskeyVisibility | null;
  /** The `misskey` format's notes stay off federation. */
  localOnly: boolean;
  /** Request headers of its own (extra-headers.ts), sent with every attempt. */
  headers: ExtraHeaders;
  /** `discord` and `slack`: the mention its posts of severe telegrams start with (formats/mention.ts). */
  mention: string | null;
  mentionOn: MentionThreshold;
}

export interface Subscription {
  id: number;
  accountId: number;
  url: string;
  host: string;
  filter: DeliveryFilter;
  format: WebhookFormat;
  lang: 'ja' | 'en';
  /** The `misskey` format's note visibility (null for the other formats). */
  visibility: MisskeyVisibility | null;
  localOnly: boolean;
  /** The names of its own request headers (their values are sealed and never shown). */
  headerNames: string[];
  mention: string | null;
  mentionOn: MentionThreshold;
  state: 'active' | 'disabled';
  disabledReason: string | null;
  failingSince: Date | null;
  fromSerial: number;
  createdAt: Date;
  /** Since when the signing secret is the one it is (its creation, or its latest rotation). */
  secretFrom: Date;
  /** Until when the secret its latest rotation replaced still signs beside it; null when none does. */
  previousSecretUntil: Date | null;
}

interface Row {
  id: number;
  account_id: number;
  url: string;
  host: string;
  classifications: string[];
  types: string[] | null;
  test: 'no' | 'including';
  format_mode: 'raw' | 'json';
  areas: string[] | null;
  min_intensity: string | null;
  format: WebhookFormat;
  lang: 'ja' | 'en';
  visibility: MisskeyVisibility | null;
  local_only: boolean;
  header_names: string[];
  mention: string | null;
  mention_on: MentionThreshold;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  failing_since: Date | null;
  from_serial: number;
  created_at: Date;
  secret_from: Date;
  previous_secret_until: Date | null;
}

/** The settings columns' values, in the order the insert and the change write them (url … mention_on). */
const settingsParams = (spec: SubscriptionSpec, host: string, classifications: string[]) => [
  spec.url,
  host,
  classifications,
  spec.types,
  spec.test,
  spec.formatMode,
  spec.areas,
  spec.minIntensity,
  spec.format,
  spec.lang,
  spec.mention,
  spec.mentionOn,
];

const COLUMNS = `id, account_id, url, host, classifications, types, test, format_mode, areas, min_intensity,
  format, lang, visibility, local_only, header_names, mention, mention_on, state, disabled_reason, failing_since, from_serial, created_at,
  secret_from, previous_secret_until`;

function toSubscription(r: Row): Subscription {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    host: r.host,
    filter: {
      classifications: r.classifications,
      types: r.types,
      test: r.test,
      formatMode: r.format_mode,
      areas: r.areas,
      minIntensity: r.min_intensity,
    },
    format: r.format,
    lang: r.lang,
    visibility: r.visibility,
    localOnly: r.local_only,
    headerNames: r.header_names,
    mention: r.mention,
    mentionOn: r.mention_on,
    state: r.state,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    fromSerial: r.from_serial,
    createdAt: r.created_at,
    secretFrom: r.secret_from,
    previousSecretUntil: r.previous_secret_until,
  };
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export type CreateOutcome =
  { ok: true; subscription: Subscription; secret: string } | { ok: false; reason: 'no-contract' | 'full' };

/**
 * Creates a subscription for the requested classifications the account has contracted (the
 * others are dropped, as a socket start drops them); `no-contract` when none is, `full` at the cap.
 * The account row is locked first, so concurrent creations are counted one after the other.
 */
export async function createSubscription(
  db: Db,
  box: SecretBox,
  accountId: number,
  spec: SubscriptionSpec,
  host: string,
): Promise<CreateOutcome> {
  return db.tx((q) => insertSubscription(q, box, accountId, spec, host));
}

/** `createSubscription` inside the caller's transaction. */
export async function insertSubscription(
  q: Queryable,
  box: SecretBox,
  accountId: number,
  spec: SubscriptionSpec,
  host: string,
): Promise<CreateOutcome> {
  await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  const [held] = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_subscriptions WHERE account_id = $1',
    [accountId],
  );
  if (held!.n >= MAX_SUBSCRIPTIONS_PER_ACCOUNT) return { ok: false, reason: 'full' } as const;
  const contracted = await contractedClassifications(q, accountId);
  const classifications = [...new Set(spec.classifications)].filter((c) => contracted.has(c));
  if (classifications.length === 0) return { ok: false, reason: 'no-contract' } as const;
  const secret = newSigningSecret();
  // The version first: its row lock, held to COMMIT, keeps a queuer from moving the position past
  // a telegram committed after `from_serial` is read below and before this subscription is seen.
  await subscriptionsChanged(q);
  const rows = await q.query<Row>(
    `INSERT INTO webhook_subscriptions (account_id, url, host, classifications, types, test, format_mode,
       areas, min_intensity, format, lang, mention, mention_on, secret_sealed, token_sealed, visibility,
       local_only, headers_sealed, header_names, from_serial)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
       (SELECT coalesce(max(serial), 0) FROM telegrams))
     RETURNING ${COLUMNS}`,
    [
      accountId,
      ...settingsParams(spec, host, classifications),
      box.seal(secret),
      spec.token === null ? null : box.seal(spec.token),
      spec.visibility,
      spec.localOnly,
      sealHeaders(box, spec.headers),
      spec.headers.map(([name]) => name),
    ],
  );
  return { ok: true, subscription: toSubscription(rows[0]!), secret } as const;
}

/** The account's oldest subscription to `url` newer than `afterId`, or null. */
export async function subscriptionMadeAfter(
  q: Queryable,
  accountId: number,
  afterId: number,
  url: string,
): Promise<Subscription | null> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 AND id > $2 AND url = $3
      ORDER BY id LIMIT 1`,
    [accountId, afterId, url],
  );
  return rows[0] ? toSubscription(rows[0]) : null;
}

/** The account's subscriptions, oldest first. */
export async function listSubscriptions(q: Queryable, accountId: number): Promise<Subscription[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 ORDER BY id`,
    [accountId],
  );
  return rows.map(toSubscription);
}

/** One of the account's subscriptions, or null (another account's is not found either). */
export async function findSubscription(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<Subscription | null> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return rows[0] ? toSubscription(rows[0]) : null;
}

/**
 * Enables one of the account's subscriptions again (a no-op on an active one); null when there is
 * none. It starts a new failing streak and receives the telegrams committed from now on, as a new
 * subscription does: none of those committed while it was disabled is queued for it.
 */
export function enableSubscription(db: Db, accountId: number, id: number): Promise<Subscription | null> {
  return changeState(db, accountId, id, 'active');
}

/** The reason a subscription disabled by its owner shows (the failing streak's names its start). */
export const DISABLED_BY_OWNER = 'disabled by its owner';

/**
 * Disables one of the account's subscriptions at its owner's asking (docs/webhooks.md
 * "Subscriptions"): nothing is queued for it or sent to it until it is enabled again, and its
 * pending deliveries fail with it (they can be recovered once it is enabled). A disabled one is left
 * as it is; null when there is none.
 */
export function disableSubscription(db: Db, accountId: number, id: number): Promise<Subscription | null> {
  return changeState(db, accountId, id, 'disabled');
}

async function changeState(
  db: Db,
  accountId: number,
  id: number,
  to: 'active' | 'disabled',
): Promise<Subscription | null> {
  return triedPastDeadlocks(() =>
    db.tx(async (q) => {
      // The version first, as every change: no queuer moves past a telegram committed after an
      // enabled one's `from_serial`; a slice being written for a disabled one is committed, then failed below.
      await subscriptionsChanged(q);
      const rows = await q.query<Row>(
        to === 'active'
          ? `UPDATE webhook_subscriptions SET state = 'active', disabled_reason = NULL, failing_since = NULL,
               from_serial = (SELECT coalesce(max(serial), 0) FROM telegrams)
             WHERE account_id = $1 AND id = $2 AND state = 'disabled'
             RETURNING ${COLUMNS}`
          : `UPDATE webhook_subscriptions SET state = 'disabled', disabled_reason = '${DISABLED_BY_OWNER}',
               failing_since = NULL
             WHERE account_id = $1 AND id = $2 AND state = 'active'
             RETURNING ${COLUMNS}`,
        [accountId, id],
      );
      if (!rows[0]) return findSubscription(q, accountId, id);
      if (to === 'disabled') await failPending(q, id);
      return toSubscription(rows[0]);
    }),
  );
}

/**
 * Fails the pending deliveries of a subscription just disabled (inside the disabling transaction,
 * after the queuer's lock): an attempt under way records nothing more (no lease).
 */
export async function failPending(q: Queryable, subscriptionId: number): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET state = 'failed', last_error = coalesce(last_error, 'subscription disabled'),
       lease_until = NULL
     WHERE subscription_id = $1 AND state = 'pending'`,
    [subscriptionId],
  );
}

export type UpdateOutcome =
  { ok: true; subscription: Subscription } | { ok: false; reason: 'not-found' | 'no-contract' };

/**
 * Changes one of the account's subscriptions to `spec` in place: its id, secret, state and deliveries
 * stay, and the telegrams the queuer matches from then on are matched with the new settings. With
 * `newClassifications`, those the account has no contract for are dropped (`no-contract` when none
 * is left), as at creation, but for those of `held` (the ones it holds that the change keeps);
 * otherwise they are kept as they are (a contract that ended meanwhile stops their deliveries, and
 * one that returns starts them again). With `keepToken`, the Misskey token stays the stored one;
 * with `keepHeaders`, the request headers.
 */
export async function updateSubscription(
  db: Db,
  box: SecretBox,
  accountId: number,
  id: number,
  change: {
    spec: SubscriptionSpec;
    host: string;
    newClassifications: boolean;
    keepToken: boolean;
    keepHeaders: boolean;
    /** Classifications the subscription holds that stay without a running contract (the console's form). */
    held?: readonly string[];
  },
): Promise<UpdateOutcome> {
  const { spec, host, newClassifications, keepToken, keepHeaders, held = [] } = change;
  const token = keepToken || spec.token === null ? null : box.seal(spec.token);
  const headers = keepHeaders ? null : sealHeaders(box, spec.headers);
  return triedPastDeadlocks(() =>
    db.tx(async (q) => {
      let classifications = [...new Set(spec.classifications)];
      if (newClassifications) {
        const contracted = await contractedClassifications(q, accountId);
        classifications = classifications.filter((c) => contracted.has(c) || held.includes(c));
        if (classifications.length === 0) return { ok: false, reason: 'no-contract' } as const;
      }
      // The version first: every queuer matches the next telegram with the new settings.
      await subscriptionsChanged(q);
      const rows = await q.query<Row>(
        `UPDATE webhook_subscriptions SET url = $3, host = $4, classifications = $5, types = $6, test = $7,
           format_mode = $8, areas = $9, min_intensity = $10, format = $11, lang = $12, mention = $13,
           mention_on = $14, token_sealed = CASE WHEN $15 THEN token_sealed ELSE $16 END, visibility = $17,
           local_only = $18, headers_sealed = CASE WHEN $19 THEN headers_sealed ELSE $20 END,
           header_names = CASE WHEN $19 THEN header_names ELSE $21 END
         WHERE account_id = $1 AND id = $2
         RETURNING ${COLUMNS}`,
        [
          accountId,
          id,
          ...settingsParams(spec, host, classifications),
          keepToken,
          token,
          spec.visibility,
          spec.localOnly,
          keepHeaders,
          headers,
          spec.headers.map(([name]) => name),
        ],
      );
      return rows[0]
        ? ({ ok: true, subscription: toSubscription(rows[0]) } as const)
        : ({ ok: false, reason: 'not-found' } as const);
    }),
  );
}

/** How long a rotated-out secret goes on signing beside the new one: a day unless told, a week at most. */
export const DEFAULT_PREVIOUS_SECRET_MS = 86_400_000;
export const MAX_PREVIOUS_SECRET_MS = 7 * 86_400_000;

export type RotateOutcome =
  { ok: true; subscription: Subscription; secret: string } | { ok: false; reason: 'not-found' | 'rotated' };

/**
 * Gives one of the account's subscriptions a new signing secret (returned, to be shown once). The
 * secret it replaces goes on signing beside it for `previousValidMs` (none when 0), so that every
 * attempt meanwhile verifies with either; a secret rotated out before is dropped. With `secretFrom`,
 * only the secret of that time is replaced (`rotated` when it was already: a form sent again).
 */
export async function rotateSecret(
  db: Db,
  box: SecretBox,
  accountId: number,
  id: number,
  previousValidMs: number,
  secretFrom?: Date,
): Promise<RotateOutcome> {
  const secret = newSigningSecret();
  const sealed = box.seal(secret);
  return triedPastDeadlocks(() =>
    db.tx(async (q) => {
      // The version first: every queuer reads the subscriptions again, with the new secret. The form's
      // time is a JavaScript Date's, to the millisecond: compared at that precision.
      await subscriptionsChanged(q);
      const rows = await q.query<Row>(
        `UPDATE webhook_subscriptions SET secret_sealed = $3, secret_from = now(),
         previous_secret_sealed = CASE WHEN $4 > 0 THEN secret_sealed END,
         previous_secret_until = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 millisecond' END
       WHERE account_id = $1 AND id = $2 AND ($5::timestamptz IS NULL OR date_trunc('milliseconds', secret_from) = $5)
       RETURNING ${COLUMNS}`,
        [accountId, id, sealed, previousValidMs, secretFrom?.toISOString() ?? null],
      );
      if (rows[0]) return { ok: true, subscription: toSubscription(rows[0]), secret } as const;
      const found = await findSubscription(q, accountId, id);
      return { ok: false, reason: found ? 'rotated' : 'not-found' } as const;
    }),
  );
}

/** Times a change of a subscription is tried when the database chose it as a deadlock's victim. */
const DEADLOCK_TRIES = 3;

/**
 * A change that takes the queuer's lock, then the subscription's row: an attempt whose failure
 * disables the subscription holds that row when it asks for the lock. The database breaks that
 * deadlock, and a change chosen as its victim is tried again.
 */
async function triedPastDeadlocks<T>(change: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await change();
    } catch (err) {
      if (tries === DEADLOCK_TRIES || (err as { code?: unknown }).code !== '40P01') throw err;
    }
  }
}

/**
 * Deletes one of the account's subscriptions with its deliveries; false when there was none. The
 * deliveries go first: recording an attempt locks its delivery, then the subscription, and taking
 * them in the same order here leaves no deadlock with an attempt under way; one whose failure
 * disables the subscription is the deadlock `triedPastDeadlocks` outlives.
 */
export async function deleteSubscription(db: Db, accountId: number, id: number): Promise<boolean> {
  return triedPastDeadlocks(() => deleteOnce(db, accountId, id));
}

async function deleteOnce(db: Db, accountId: number, id: number): Promise<boolean> {
  return db.tx(async (q) => {
    await subscriptionsChanged(q);
    await q.query(
      `DELETE FROM webhook_deliveries
       WHERE subscription_id = (SELECT id FROM webhook_subscriptions WHERE account_id = $1 AND id = $2)`,
      [accountId, id],
    );
    const rows = await q.query(
      'DELETE FROM webhook_subscriptions WHERE account_id = $1 AND id = $2 RETURNING id',
      [accountId, id],
    );
    return rows.length > 0;
  });
}

/**
 * Tells every queuer that the subscriptions changed (in the changing transaction): the version it
 * reads under its lock differs from the one of the subscriptions it holds, and it reads them again.
 * Waits for a slice of the queue being written (its lock, held to this transaction's end).
 */
export async function subscriptionsChanged(q: Queryable): Promise<void> {
  await q.query('SELECT move_webhook_subscriptions_version()');
}

/** Whether any subscription is active (the process then starts its sender thread at once). */
export async function anyActiveSubscription(q: Queryable): Promise<boolean> {
  const [row] = await q.query<{ any: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE state = 'active') AS any",
  );
  return row!.any;
}

/** An active subscription as the queuer takes it: with its sealed secret, token and headers, for the attempts. */
export interface ActiveSubscription extends Subscription {
  secretSealed: string;
  tokenSealed: string | null;
  previousSecretSealed: string | null;
  headersSealed: string | null;
}

/**
 * The active subscriptions of enabled accounts, each with its classifications narrowed to what the
 * account holds a running contract for now (a contract that ended stops its deliveries).
 */
export async function activeSubscriptions(q: Queryable): Promise<ActiveSubscription[]> {
  const rows = await q.query<
    Row & {
      plan_ids: number[];
      secret_sealed: string;
      token_sealed: string | null;
      previous_secret_sealed: string | null;
      headers_sealed: string | null;
    }
  >(
    `SELECT s.id, s.account_id, s.url, s.host, s.classifications, s.types, s.test, s.format_mode, s.areas,
       s.min_intensity, s.format, s.lang, s.visibility, s.local_only, s.header_names, s.mention, s.mention_on,
       s.state, s.disabled_reason,
       s.failing_since, s.from_serial, s.created_at, s.secret_from, s.previous_secret_until, s.secret_sealed,
       s.token_sealed, s.previous_secret_sealed, s.headers_sealed,
       ARRAY(SELECT c.plan_id FROM contracts c WHERE c.account_id = s.account_id AND c.end_at IS NULL) AS plan_ids
     FROM webhook_subscriptions s JOIN accounts a ON a.id = s.account_id
     WHERE s.state = 'active' AND a.disabled_at IS NULL
     ORDER BY s.id`,
  );
  return rows.flatMap((r) => {
    const contracted = new Set(
      r.plan_ids.flatMap((id) => {
        const plan = planById(id);
        return plan?.delivers ? [plan.classification] : [];
      }),
    );
    const sub = toSubscription(r);
    const classifications = sub.filter.classifications.filter((c) => contracted.has(c));
    if (classifications.length === 0) return [];
    const filter = { ...sub.filter, classifications };
    const sealed = {
      secretSealed: r.secret_sealed,
      tokenSealed: r.token_sealed,
      previousSecretSealed: r.previous_secret_sealed,
      headersSealed: r.headers_sealed,
    };
    return [{ ...sub, filter, ...sealed }];
  });
}

/**
 * The subscription's signing secret, the one its latest rotation replaced while that still signs,
 * its token and its request headers, opened; a secret sealed under another pepper is null.
 */
export async function secretsOf(
  q: Queryable,
  box: SecretBox,
  id: number,
): Promise<{
  secret: string | null;
  previousSecret: string | null;
  token: string | null;
  /** Its request headers; null when sealed under another pepper. */
  headers: Record<string, string> | null;
} | null> {
  const rows = await q.query<{
    secret_sealed: string;
    previous_sealed: string | null;
    token_sealed: string | null;
    headers_sealed: string | null;
  }>(
    `SELECT secret_sealed, token_sealed, headers_sealed,
       CASE WHEN previous_secret_until > now() THEN previous_secret_sealed END AS previous_sealed
     FROM webhook_subscriptions WHERE id = $1`,
    [id],
  );
  if (!rows[0]) return null;
  const { secret_sealed, previous_sealed, token_sealed, headers_sealed } = rows[0];
  const headers = headers_sealed === null ? '[]' : box.open(headers_sealed);
  return {
    secret: box.open(secret_sealed),
    previousSecret: previous_sealed === null ? null : box.open(previous_sealed),
    token: token_sealed === null ? null : box.open(token_sealed),
    headers: headers === null ? null : openedHeaders(headers),
  };
}
