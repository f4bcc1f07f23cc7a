/**
 * WebSocket sessions and their tickets (docs/realtime.md "Sessions and tickets",
 * docs/api-contract.md "Tickets").
 *
 * Lifecycle: `waiting` (created by POST /v2/socket; the ticket is valid 300 s) → `open` (the ticket
 * was redeemed on the WebSocket endpoint) → `closed`. An expired ticket leaves its session `waiting`.
 *
 * Connection limit: a session counts while `open`, or while `waiting` and unexpired. The count and
 * the insert (or the opening) run in one transaction holding the account row `FOR UPDATE`, so
 * concurrent starts — on any number of processes sharing the database — never exceed the limit.
 *
 * A process that dies leaves its sessions `open`; they stop counting once the process has not been
 * seen for `PROCESS_DEAD_AFTER_MS` (process-liveness.ts), or no pong was recorded for `staleMs`, and
 * are closed lazily by the next check on that account.
 */
import { randomBytes } from 'node:crypto';
import {
  connectionTerms,
  contractedClassifications,
  TERMS_COLUMNS,
  termsOf,
  type ConnectionTerms,
  type TermsRow,
} from '../accounts/contracts.ts';
import { plans } from '../accounts/plans.ts';
import type { Db, Queryable } from '../db/types.ts';
import { digestSecret } from '../security/secrets.ts';
import { Batches } from '../batches.ts';
import { PROCESS_SEEN, PROCESS_UNSEEN } from './process-liveness.ts';

export const TICKET_VALIDITY_MS = 300_000;
/**
 * The WebSocket path and protocol a session's ticket is redeemed on (docs/api-contract.md
 * "Addresses", "Handshake").
 */
export const WEBSOCKET_PATH = '/v2/websocket';
export const WEBSOCKET_PROTOCOL = 'service.v2';
/** Close code of a session closed by its account (DELETE /v2/socket/:id). */
export const CLOSED_BY_ACCOUNT = 4808;
/**
 * Close code of a refusal for a full account, and of an open session closed because its account's
 * limit went down below its open sessions (closeSessionsBeyondLimit).
 */
export const CONNECTION_LIMIT = 4409;
/**
 * A connection with no valid pong for this long is closed by its server (docs/api-contract.md
 * "Heartbeats").
 */
export const PONG_TIMEOUT_MS = 120_000;
/** Characters of the ticket kept to show in the list (the ticket itself is stored as a digest). */
const TICKET_HINT_LENGTH = 8;

export type SessionStatus = 'waiting' | 'open' | 'closed';
export type FormatMode = 'raw' | 'json';

/** Formats a session receives in each mode (docs/api-contract.md "Filters and formats"). */
export function formatsOf(mode: FormatMode): string[] {
  return mode === 'raw' ? ['xml', 'a/n', 'binary'] : ['a/n', 'binary', 'json'];
}

export interface SessionSpec {
  classifications: string[];
  types: string[] | null;
  test: 'no' | 'including';
  formatMode: FormatMode;
  appName: string | null;
  /** Filters by place and strength (docs/realtime.md): area and prefecture codes, null = every place. */
  areas?: string[] | null;
  /** Earthquake and early-warning telegrams below this intensity are dropped; null = none. */
  minIntensity?: string | null;
  /**
   * The serial after which the connection catches up from the store before it joins the live stream
   * (docs/realtime.md "Resume"); null: live only. Not shown in the list.
   */
  resumeAfter?: number | null;
}

export interface SocketSession extends SessionSpec {
  id: number;
  accountId: number;
  ticketHint: string;
  status: SessionStatus;
  start: Date;
  expiresAt: Date;
  end: Date | null;
  ping: Date | null;
  ipAddress: string | null;
  server: string | null;
  /** Digest of the credential the session was started with (null for sessions of older versions). */
  credentialDigest: string | null;
}

interface Row {
  id: number;
  account_id: number;
  ticket_digest: string;
  ticket_hint: string;
  classifications: string[];
  types: string[] | null;
  test: 'no' | 'including';
  format_mode: 'raw' | 'json';
  app_name: string | null;
  status: SessionStatus;
  start_at: Date;
  expires_at: Date;
  end_at: Date | null;
  ping_at: Date | null;
  ip_address: string | null;
  server: string | null;
  credential_digest: string | null;
  areas: string[] | null;
  min_intensity: string | null;
  resume_after: number | null;
}

const toSession = (r: Row): SocketSession => ({
  id: r.id,
  accountId: r.account_id,
  ticketHint: r.ticket_hint,
  classifications: r.classifications,
  types: r.types,
  test: r.test,
  formatMode: r.format_mode,
  appName: r.app_name,
  status: r.status,
  start: r.start_at,
  expiresAt: r.expires_at,
  end: r.end_at,
  ping: r.ping_at,
  ipAddress: r.ip_address,
  server: r.server,
  credentialDigest: r.credential_digest,
  areas: r.areas,
  minIntensity: r.min_intensity,
  resumeAfter: r.resume_after,
});

export type StartOutcome =
  { ok: true; session: SocketSession; ticket: string } | { ok: false; reason: 'no-contract' | 'full' };

export type OpenOutcome =
  { ok: true; session: SocketSession } | { ok: false; reason: 'unknown' | 'full' | 'no-contract' };

/** A session start: what was asked, when, with which credential. */
interface StartRequest {
  spec: SessionSpec;
  now: number;
  credentialDigest: string | null;
}

/** Who redeems a ticket: the client's address, and the process that will hold the connection. */
export interface OpeningProcess {
  ipAddress: string | null;
  /** The process's name in the session list. */
  server: string;
  /** The id its signs of life are recorded under (process-liveness.ts). */
  processId: string;
  now: number;
}

interface OpenRequest {
  digest: string;
  meta: OpeningProcess;
}

export interface SessionStore {
  db: Db;
  pepper: Buffer;
  /** An open session with no sign of life for this long belongs to a dead process. */
  staleMs: number;
  /** Starts and redemptions of one account, in batches (batches.ts). */
  starts: Batches<StartRequest, StartOutcome>;
  opens: Batches<OpenRequest, OpenOutcome>;
  /** Which account a ticket's waiting session belongs to, looked up in batches across accounts. */
  owners: Batches<string, number | null>;
}

/** The session store of a server pinging every `pingIntervalMs`: pongs are recorded once per ping. */
export function sessionStore(db: Db, pepper: Buffer, pingIntervalMs: number): SessionStore {
  const staleMs = PONG_TIMEOUT_MS + 2 * pingIntervalMs;
  const store: SessionStore = {
    db,
    pepper,
    staleMs,
    starts: new Batches((accountId, requests) => startBatch(store, Number(accountId), requests)),
    opens: new Batches((accountId, requests) => openBatch(store, Number(accountId), requests)),
    owners: new Batches((_key, digests) => ownersBatch(db, digests)),
  };
  return store;
}

/** Whether an open session `s` is dead: its process unseen, or no pong recorded since $2. */
const DEAD = `(COALESCE(s.ping_at, s.start_at) < $2 OR (s.process_id IS NOT NULL AND ${PROCESS_UNSEEN}))`;

/**
 * The CTEs that the statements counting an account's ($1) live sessions start with, inside the
 * account lock: `held`, the account's sessions not closed, read once, each with whether it holds a
 * slot at $3 and whether it is dead; `closed`, the dead ones closed (the condition checked again on
 * the row, in case a pong was recorded since). One read of the account's sessions where the close,
 * the count and the tickets' look-up each read them: at a thousand sessions an account, those reads
 * were most of a ticket client's cost to the database.
 */
const HELD_AND_CLOSED = `held AS MATERIALIZED (
  SELECT s.id, s.ticket_digest, s.status, s.status = 'open' OR s.expires_at > $3 AS holds,
    s.status = 'open' AND ${DEAD} AS dead
   FROM socket_sessions s WHERE s.account_id = $1 AND s.status <> 'closed'),
 closed AS (
  UPDATE socket_sessions s SET status = 'closed', end_at = COALESCE(s.ping_at, s.start_at)
    FROM held h
   WHERE s.id = h.id AND h.dead AND s.account_id = $1 AND s.status = 'open' AND ${DEAD}
   RETURNING s.id)`;

/**
 * The account's sessions holding a slot, but those `closed` (the count reads the rows as they were
 * before the close, so those are left out by id) and, with `butFound`, the batch's own (`found`).
 */
const liveCount = (butFound: boolean) => `(SELECT count(*)::int FROM held
  WHERE holds AND id NOT IN (SELECT id FROM closed)${butFound ? ' AND id NOT IN (SELECT id FROM found)' : ''})`;

/** What a batch is decided on: the account's terms (contracts.ts `termsOf`) and its live sessions. */
type Terms = ConnectionTerms & { live: number };

const termsOfRow = (row: (TermsRow & { live: number }) | undefined): Terms => ({
  ...termsOf(row),
  live: row?.live ?? 0,
});

/** The parameters of HELD_AND_CLOSED. */
const countParams = (accountId: number, now: number, staleMs: number) => [
  accountId,
  new Date(now - staleMs),
  new Date(now),
];

/** The account's terms and live sessions, in one statement, inside the account lock. */
async function termsAndLiveCount(
  q: Queryable,
  accountId: number,
  now: number,
  staleMs: number,
): Promise<Terms> {
  const rows = await q.query<TermsRow & { live: number }>(
    `WITH ${HELD_AND_CLOSED}
     SELECT ${TERMS_COLUMNS}, ${liveCount(false)} AS live FROM accounts a WHERE a.id = $1`,
    countParams(accountId, now, staleMs),
  );
  return termsOfRow(rows[0]);
}

async function lockAccount(q: Queryable, accountId: number): Promise<void> {
  await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
}

/**
 * Finished sessions (closed, or waiting with an expired ticket) kept per account, newest first: the
 * list's history (docs/realtime.md "Sessions and tickets"). Older ones are deleted as new sessions
 * start, so no account can grow the table without bound.
 */
export const MAX_FINISHED_SESSIONS = 1000;

/**
 * Deletes the account's finished sessions beyond the newest MAX_FINISHED_SESSIONS: a CTE of the
 * statement that inserts new ones ($1 the account, $2 the time, $3 the bound). The ids are read
 * once, from the index of the sessions not open (`status <> 'open'` names it: the open ones are not
 * walked), then deleted by key. Written as an `IN` semi-join, the planner, its statistics behind a
 * table that a storm grows by thousands a minute, ran the subquery once for each of the account's
 * sessions (63 ms a start at 300 sessions).
 */
const PRUNE_OLD_SESSIONS = `DELETE FROM socket_sessions WHERE id = ANY(ARRAY(
  SELECT id FROM socket_sessions
   WHERE account_id = $1 AND status <> 'open'
     AND (status = 'closed' OR (status = 'waiting' AND expires_at <= $2))
   ORDER BY id DESC OFFSET $3))`;

/** The latest of the requests' clocks: the batch's moment. */
const latest = (requests: readonly { now: number }[]) => Math.max(...requests.map((r) => r.now));

/**
 * Creates a `waiting` session for the requested classifications that the account has contracted
 * (the caller has checked permissions). Refuses with `no-contract` when none is contracted and
 * `full` when every connection slot is taken.
 */
export function startSession(
  store: SessionStore,
  accountId: number,
  spec: SessionSpec,
  now: number,
  /** Digest of the API key or access token the session is started with (Principal.credentialDigest). */
  credentialDigest: string | null = null,
): Promise<StartOutcome> {
  return store.starts.run(accountId, { spec, now, credentialDigest });
}

/** The starts of one account, in the order they came, as one transaction. */
async function startBatch(
  store: SessionStore,
  accountId: number,
  requests: readonly StartRequest[],
): Promise<StartOutcome[]> {
  return store.db.tx(async (q) => {
    await lockAccount(q, accountId);
    const now = latest(requests);
    const { contracted, limit, live: liveBefore } = await termsAndLiveCount(q, accountId, now, store.staleMs);
    let live = liveBefore;
    const outcomes: (StartOutcome | undefined)[] = [];
    const inserts: { at: number; ticket: string; digest: string; row: Record<string, unknown> }[] = [];
    for (const { spec, now: at, credentialDigest } of requests) {
      const classifications = [...new Set(spec.classifications)].filter((c) => contracted.has(c));
      if (classifications.length === 0) outcomes.push({ ok: false, reason: 'no-contract' });
      else if (live >= limit) outcomes.push({ ok: false, reason: 'full' });
      else {
        live += 1;
        const ticket = randomBytes(32).toString('base64url');
        const digest = digestSecret(store.pepper, ticket);
        inserts.push({
          at: outcomes.length,
          ticket,
          digest,
          row: {
            ticket_digest: digest,
            ticket_hint: ticket.slice(0, TICKET_HINT_LENGTH),
            classifications,
            types: spec.types,
            test: spec.test,
            format_mode: spec.formatMode,
            app_name: spec.appName,
            start_at: new Date(at),
            expires_at: new Date(at + TICKET_VALIDITY_MS),
            credential_digest: credentialDigest,
            resume_after: spec.resumeAfter ?? null,
            areas: spec.areas ?? null,
            min_intensity: spec.minIntensity ?? null,
          },
        });
        outcomes.push(undefined);
      }
    }
    if (inserts.length > 0) {
      const rows = await q.query<Row>(
        `WITH pruned AS (${PRUNE_OLD_SESSIONS})
         INSERT INTO socket_sessions (account_id, ticket_digest, ticket_hint, classifications, types,
           test, format_mode, app_name, start_at, expires_at, credential_digest, api_key_id, grant_id,
           resume_after, areas, min_intensity)
         SELECT $1, r.ticket_digest, r.ticket_hint, r.classifications, r.types, r.test, r.format_mode,
           r.app_name, r.start_at, r.expires_at, r.credential_digest,
           (SELECT id FROM api_keys WHERE digest = r.credential_digest),
           (SELECT grant_id FROM oauth_tokens WHERE digest = r.credential_digest),
           r.resume_after, r.areas, r.min_intensity
         FROM jsonb_to_recordset($4::jsonb) AS r(ticket_digest text, ticket_hint text,
           classifications text[], types text[], test text, format_mode text, app_name text,
           start_at timestamptz, expires_at timestamptz, credential_digest text, resume_after bigint,
           areas text[], min_intensity text)
         RETURNING *`,
        [accountId, new Date(now), MAX_FINISHED_SESSIONS, JSON.stringify(inserts.map((i) => i.row))],
      );
      const byDigest = new Map(rows.map((r) => [r.ticket_digest, r]));
      for (const { at, ticket, digest } of inserts)
        outcomes[at] = { ok: true, session: toSession(byDigest.get(digest)!), ticket };
    }
    return outcomes as StartOutcome[];
  });
}

/**
 * Redeems a ticket on the WebSocket endpoint. Single-use: whatever the outcome, the ticket cannot
 * be used again (a refused session is closed). Classifications whose contract has ended since the
 * start are dropped; the limit is checked again, in case contracts ended meanwhile.
 */
export async function openSession(
  store: SessionStore,
  ticket: string,
  meta: OpeningProcess,
): Promise<OpenOutcome> {
  if (ticket.length > 200) return { ok: false, reason: 'unknown' };
  const digest = digestSecret(store.pepper, ticket);
  const accountId = await store.owners.run(OWNERS_KEY, digest);
  if (accountId === null) return { ok: false, reason: 'unknown' };
  return store.opens.run(accountId, { digest, meta });
}

/** The one key of the owner look-ups: every ticket's, whichever its account. */
const OWNERS_KEY = 0;

/** The accounts of waiting sessions by their tickets' digests (null: no such waiting session). */
async function ownersBatch(db: Db, digests: readonly string[]): Promise<(number | null)[]> {
  const rows = await db.query<{ ticket_digest: string; account_id: number }>(
    `SELECT ticket_digest, account_id FROM socket_sessions
      WHERE ticket_digest = ANY($1::text[]) AND status = 'waiting'`,
    [digests],
  );
  const owners = new Map(rows.map((r) => [r.ticket_digest, r.account_id]));
  return digests.map((d) => owners.get(d) ?? null);
}

type OpenRefusal = 'unknown' | 'full' | 'no-contract';

/**
 * How one redemption of a batch was decided: its session (when its ticket names a usable one) and
 * why it is refused, if it is.
 */
interface OpenDecision {
  session: Row | undefined;
  reason: OpenRefusal | null;
  /** The session's classifications still contracted. */
  classifications: string[];
}

/** What a batch's decisions are checked against, read under the account lock. */
interface OpenContext {
  /** The batch's sessions whose credential was revoked, or account disabled, since their start. */
  cut: ReadonlySet<number>;
  contracted: ReadonlySet<string>;
  limit: number;
  /** Sessions holding a slot other than the batch's own. */
  others: number;
}

/**
 * Decides each redemption as if they ran one after another: a session still waiting holds its slot
 * while those before it are decided, and a refused one gives it back.
 */
function decideOpens(sessions: readonly (Row | undefined)[], context: OpenContext): OpenDecision[] {
  const { cut, contracted, limit, others } = context;
  let holding = sessions.filter(Boolean).length;
  return sessions.map((session) => {
    if (!session) return { session, reason: 'unknown', classifications: [] };
    const classifications = session.classifications.filter((c) => contracted.has(c));
    const reason: OpenRefusal | null = cut.has(session.id)
      ? 'unknown'
      : classifications.length === 0
        ? 'no-contract'
        : others + holding - 1 >= limit
          ? 'full'
          : null;
    if (reason) holding -= 1;
    return { session, reason, classifications };
  });
}

/**
 * The redemptions of one account, in the order they came, as one transaction: the sessions their
 * tickets name are read, decided (decideOpens), then opened or closed in one statement each.
 */
async function openBatch(
  store: SessionStore,
  accountId: number,
  requests: readonly OpenRequest[],
): Promise<OpenOutcome[]> {
  return store.db.tx(async (q) => {
    await lockAccount(q, accountId);
    const { found, terms } = await waitingAndTerms(
      q,
      accountId,
      requests.map((r) => r.digest),
      latest(requests.map((r) => r.meta)),
      store.staleMs,
    );
    const byDigest = new Map(found.map((r) => [r.ticket_digest, r]));
    // A session appears once in a batch: a second redemption of its ticket finds it used.
    const seen = new Set<string>();
    const sessions = requests.map(({ digest, meta }) => {
      const session = byDigest.get(digest);
      if (!session || seen.has(digest) || session.expires_at.getTime() <= meta.now) return undefined;
      seen.add(digest);
      return session;
    });
    const decided = decideOpens(sessions, {
      cut: new Set(found.flatMap((r) => (r.cut_off ? [r.id] : []))),
      contracted: terms.contracted,
      limit: terms.limit,
      others: terms.live,
    });
    const { opened, closed } = await writeOpens(q, decided, requests);
    return decided.map(({ session, reason }): OpenOutcome => {
      if (!session) return { ok: false, reason: 'unknown' };
      if (reason) return { ok: false, reason: closed.has(session.id) ? reason : 'unknown' };
      const row = opened.get(session.id);
      return row ? { ok: true, session: toSession(row) } : { ok: false, reason: 'unknown' };
    });
  });
}

/**
 * The waiting sessions of the account that the batch's tickets name (with whether each was cut off
 * since its start), the account's terms and its other live sessions, in one statement inside the
 * account lock. The batch's own sessions are not counted: each holds its slot while the batch is
 * decided (decideOpens); one whose ticket has expired holds none either way.
 */
async function waitingAndTerms(
  q: Queryable,
  accountId: number,
  digests: readonly string[],
  now: number,
  staleMs: number,
): Promise<{ found: (Row & { cut_off: boolean })[]; terms: Terms }> {
  // One row per session found, each with the terms; one row of terms alone (its session's columns
  // null) when none is.
  type Found = Row & { cut_off: boolean };
  const rows = await q.query<TermsRow & { live: number } & (Found | { [K in keyof Found]: null })>(
    `WITH ${HELD_AND_CLOSED},
     found AS (
       SELECT s.*, ${CUT_OFF} AS cut_off
         FROM held h JOIN socket_sessions s ON s.id = h.id JOIN accounts a ON a.id = s.account_id
        WHERE h.ticket_digest = ANY($4::text[]) AND h.status = 'waiting' AND s.status = 'waiting'),
     terms AS (
       SELECT ${TERMS_COLUMNS}, ${liveCount(true)} AS live
         FROM accounts a WHERE a.id = $1)
     SELECT found.*, terms.* FROM terms LEFT JOIN found ON true`,
    [...countParams(accountId, now, staleMs), digests],
  );
  return { found: rows.filter((r): r is typeof r & Found => r.id !== null), terms: termsOfRow(rows[0]) };
}

/**
 * Opens the sessions decided open and closes those refused, each only while still waiting (so two
 * concurrent redemptions of one ticket open it at most once); returns the rows opened and the ids
 * closed. The ids are given as an array too, so that the sessions are found by key: joined to the
 * records alone, they were found by reading the whole table.
 */
async function writeOpens(
  q: Queryable,
  decided: readonly OpenDecision[],
  requests: readonly OpenRequest[],
): Promise<{ opened: Map<number, Row>; closed: Set<number> }> {
  const opening = decided.flatMap(({ session, reason, classifications }, i) =>
    session && !reason ? [{ id: session.id, classifications, ...placeOf(requests[i]!.meta) }] : [],
  );
  const refusing = decided.flatMap(({ session, reason }, i) =>
    session && reason ? [{ id: session.id, ...placeOf(requests[i]!.meta) }] : [],
  );
  const opened = opening.length
    ? await q.query<Row>(
        `UPDATE socket_sessions s SET status = 'open', start_at = r.at, ip_address = r.ip,
           server = r.server, classifications = r.classifications, process_id = r.process
         FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, classifications text[], at timestamptz,
           ip text, server text, process text)
         WHERE s.id = r.id AND s.id = ANY($2::bigint[]) AND s.status = 'waiting' RETURNING s.*`,
        [JSON.stringify(opening), opening.map((o) => o.id)],
      )
    : [];
  const closed = refusing.length
    ? await q.query<{ id: number }>(
        `UPDATE socket_sessions s SET status = 'closed', end_at = r.at, ip_address = r.ip,
           server = r.server
         FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, at timestamptz, ip text, server text)
         WHERE s.id = r.id AND s.id = ANY($2::bigint[]) AND s.status = 'waiting' RETURNING s.id`,
        [JSON.stringify(refusing), refusing.map((r) => r.id)],
      )
    : [];
  return { opened: new Map(opened.map((r) => [r.id, r])), closed: new Set(closed.map((r) => r.id)) };
}

/** Where and when a redemption took place, as its row records it. */
const placeOf = (meta: OpeningProcess) => ({
  at: new Date(meta.now),
  ip: meta.ipAddress,
  server: meta.server,
  process: meta.processId,
});

/** Marks sessions closed (their connections ended). Closing twice keeps the first end time. */
export async function endSessions(
  q: Queryable,
  ids: readonly number[],
  now: number,
  code: number | null,
): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE socket_sessions SET status = 'closed', end_at = $2, close_code = $3
      WHERE id = ANY($1::bigint[]) AND status <> 'closed'`,
    [ids, new Date(now), code],
  );
}

/**
 * Closes one of the account's sessions by request (DELETE /v2/socket/:id). Returns false when the
 * account has no such session. The process holding an open connection closes it (bus socketClose).
 */
export async function closeSessionOf(
  q: Queryable,
  accountId: number,
  id: number,
  now: number,
): Promise<boolean> {
  const rows = await q.query(`SELECT id FROM socket_sessions WHERE id = $1 AND account_id = $2`, [
    id,
    accountId,
  ]);
  if (rows.length === 0) return false;
  await endSessions(q, [id], now, CLOSED_BY_ACCOUNT);
  return true;
}

/**
 * Whether a session `s` of account `a` is cut off: the account disabled, or the API key or OAuth
 * grant it was started with revoked since.
 */
const CUT_OFF = `(a.disabled_at IS NOT NULL
  OR (s.api_key_id IS NOT NULL AND NOT EXISTS
       (SELECT 1 FROM api_keys k WHERE k.id = s.api_key_id AND k.revoked_at IS NULL))
  OR (s.grant_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = s.grant_id)))`;

/**
 * Of these sessions, those cut off since they started: their account was disabled, the API key
 * they were started with was revoked, or the OAuth authorization of their access token was
 * revoked (its grant deleted: by the account, by revoking the refresh token, or with its client).
 * One statement, for a process's connections at each heartbeat and at each revocation announced.
 */
export async function cutOffSessions(q: Queryable, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: number }>(
    `SELECT s.id FROM socket_sessions s JOIN accounts a ON a.id = s.account_id
      WHERE s.id = ANY($1::bigint[]) AND ${CUT_OFF}`,
    [ids],
  );
  return rows.map((r) => r.id);
}

/** The plans that deliver a classification: what a session's classifications are contracted by. */
const delivering = plans.filter((p) => p.delivers);

/**
 * Whether an `open` session `s` holds one of its account's slots: its process is alive (a dead
 * process's sessions stop counting, process-liveness.ts).
 */
const HOLDS_SLOT = `(s.status = 'open' AND (s.process_id IS NULL OR ${PROCESS_SEEN}))`;

/** What a process that missed bus announcements about the sessions it holds finds in the store. */
export interface MissedChanges {
  /** Sessions closed by their account (DELETE /v2/socket/:id). */
  closedByAccount: number[];
  /** Sessions closed because their account's connection limit went down (closeSessionsBeyondLimit). */
  beyondLimit: number[];
  /** Accounts whose open sessions still hold a classification without a running contract. */
  contractsEnded: number[];
  /** Accounts with more open sessions than their connection limit allows. */
  overLimit: number[];
}

/**
 * The accounts a process found within their terms, with those terms as read then (the limit the
 * operator set and the running contracts, by id: every change of either changes them), and the
 * sessions it held: `missedChanges` looks again only at the accounts it holds whose terms changed
 * since, or that it never found within, so that a large account's sessions are not counted at every
 * tick. The terms are read from the account and contract rows at each tick, not from a counter the
 * changes move: a contract's change then never waits for a lock a ticket's redemption holds.
 */
export class LimitChecks {
  private terms = new Map<number, string>();
  /** The sessions held at the last look. */
  private seen = new Set<number>();

  /** Of the accounts held, with their terms now, those to look at. */
  changed(held: ReadonlyMap<number, string>): number[] {
    return [...held].flatMap(([id, terms]) => (this.terms.get(id) === terms ? [] : [id]));
  }

  /**
   * The sessions held now and not at the last look: a session whose ticket was redeemed as its
   * contract ended, and whose connection came after the process narrowed the others, holds the
   * ended classification under terms already looked at.
   */
  fresh(ids: readonly number[]): number[] {
    return ids.filter((id) => !this.seen.has(id));
  }

  /**
   * After a look at the sessions `ids`: the accounts held now, with their terms read before the
   * look, less those found beyond them.
   */
  update(ids: readonly number[], held: ReadonlyMap<number, string>, beyond: ReadonlySet<number>): void {
    this.terms = new Map([...held].filter(([id]) => !beyond.has(id)));
    this.seen = new Set(ids);
  }

  /**
   * Every account is looked at again at the next tick: this process's sessions were opened again
   * after others took it for dead (process-liveness.ts `reinstateSessions`), which may put their
   * accounts over their limits under unchanged terms.
   */
  forget(): void {
    this.terms.clear();
  }
}

/**
 * Of these sessions, those closed by their account or for its connection limit, and the accounts of
 * the open ones that still hold a classification their account has no running contract for, or that
 * hold more slots than their limit (as contracts.ts `connectionTerms` reckons it): a process that
 * held their connections and missed the bus announcement (or that was given none: the operator's
 * limit) closes or narrows them when it next looks (at each heartbeat). One statement reads the
 * closed sessions and the terms of the accounts held; a second, only when some changed since
 * `checks` last found them within (or sessions are held that were not), looks at those; `checks`
 * then holds what was found.
 */
export async function missedChanges(
  q: Queryable,
  ids: readonly number[],
  checks: LimitChecks,
): Promise<MissedChanges> {
  const rows = ids.length
    ? await q.query<{
        id: number | null;
        account_id: number;
        close_code: number | null;
        terms: string | null;
      }>(
        `WITH held AS (
           SELECT id, account_id, status, close_code FROM socket_sessions WHERE id = ANY($1::bigint[]))
         SELECT id, account_id, close_code, NULL AS terms FROM held
          WHERE status = 'closed' AND close_code IN ($2, $3)
         UNION ALL
         SELECT NULL, a.id, NULL, coalesce(a.connection_limit::text, '') || '/' ||
             coalesce((SELECT string_agg(k.id::text, ',' ORDER BY k.id) FROM contracts k
                        WHERE k.account_id = a.id AND k.end_at IS NULL), '')
           FROM accounts a
          WHERE a.id IN (SELECT account_id FROM held WHERE status = 'open')`,
        [ids, CLOSED_BY_ACCOUNT, CONNECTION_LIMIT],
      )
    : [];
  const closed = (code: number) => rows.filter((r) => r.close_code === code).map((r) => Number(r.id));
  const held = new Map(rows.filter((r) => r.id === null).map((r) => [Number(r.account_id), r.terms ?? '']));
  const found = await beyondTerms(q, ids, checks.changed(held), checks.fresh(ids));
  checks.update(ids, held, new Set([...found.contractsEnded, ...found.overLimit]));
  return { closedByAccount: closed(CLOSED_BY_ACCOUNT), beyondLimit: closed(CONNECTION_LIMIT), ...found };
}

/**
 * The accounts whose open sessions among `ids` (those of `accounts`, and the `fresh` ones) still
 * hold a classification with no running contract, and those of `accounts` holding more slots than
 * their limit: one statement, which counts the sessions of `accounts` only.
 */
async function beyondTerms(
  q: Queryable,
  ids: readonly number[],
  accounts: readonly number[],
  fresh: readonly number[],
): Promise<Pick<MissedChanges, 'contractsEnded' | 'overLimit'>> {
  if (accounts.length === 0 && fresh.length === 0) return { contractsEnded: [], overLimit: [] };
  const rows = await q.query<{ account_id: number; over: boolean }>(
    `SELECT DISTINCT s.account_id, false AS over FROM socket_sessions s
      WHERE s.id = ANY($1::bigint[]) AND (s.account_id = ANY($2::bigint[]) OR s.id = ANY($7::bigint[]))
        AND s.status = 'open'
        AND EXISTS (SELECT 1 FROM unnest($3::text[], $4::int[]) AS p(classification, plan_id)
                     WHERE p.classification = ANY(s.classifications)
                       AND NOT EXISTS (SELECT 1 FROM contracts k WHERE k.account_id = s.account_id
                                         AND k.plan_id = p.plan_id AND k.end_at IS NULL))
     UNION ALL
     SELECT a.id, true FROM accounts a
      WHERE a.id = ANY($2::bigint[])
        AND (SELECT count(*) FROM socket_sessions s WHERE s.account_id = a.id AND ${HOLDS_SLOT})
          > COALESCE(a.connection_limit,
              (SELECT COALESCE(sum(p.counts), 0) FROM contracts k
                 JOIN unnest($5::int[], $6::int[]) AS p(plan_id, counts) ON p.plan_id = k.plan_id
                WHERE k.account_id = a.id AND k.end_at IS NULL))`,
    [
      ids,
      accounts,
      delivering.map((p) => p.classification),
      delivering.map((p) => p.id),
      plans.map((p) => p.id),
      plans.map((p) => p.connectionCounts),
      fresh,
    ],
  );
  const of = (over: boolean) => rows.filter((r) => r.over === over).map((r) => Number(r.account_id));
  return { contractsEnded: of(false), overLimit: of(true) };
}

/**
 * Closes the account's open sessions beyond its connection limit (it went down), with
 * CONNECTION_LIMIT: those opened last go, the first `limit` opened stay. Decided once, under the
 * account's lock, in one statement, so that the processes that each hear of the change never close
 * more than the excess, nor a session twice: the first one closes them, the others find none beyond.
 * A session with no contracted classification left is not counted (it closes with 4807), nor one of
 * a dead process. Their `end` is the database's time (as the liveness rules'). Returns the sessions of `held` (the caller's connections) closed for the limit,
 * by this call or an earlier one: the connections to close.
 */
export async function closeSessionsBeyondLimit(
  db: Db,
  accountId: number,
  held: readonly number[],
): Promise<number[]> {
  return db.tx(async (q) => {
    await lockAccount(q, accountId);
    const { limit, contracted } = await connectionTerms(q, accountId);
    const rows = await q.query<{ id: number }>(
      `WITH beyond AS (
         UPDATE socket_sessions SET status = 'closed', end_at = statement_timestamp(), close_code = $2
          WHERE id IN (SELECT s.id FROM socket_sessions s
                        WHERE s.account_id = $1 AND ${HOLDS_SLOT} AND s.classifications && $3::text[]
                        ORDER BY s.start_at, s.id OFFSET $4)
          RETURNING id)
       SELECT id FROM beyond WHERE id = ANY($5::bigint[])
       UNION
       SELECT id FROM socket_sessions
        WHERE account_id = $1 AND id = ANY($5::bigint[]) AND status = 'closed' AND close_code = $2`,
      [accountId, CONNECTION_LIMIT, [...contracted], limit, held],
    );
    return rows.map((r) => r.id);
  });
}

/**
 * Records the latest valid pong of many sessions at once (one statement per heartbeat). The rows are
 * updated in place (HOT) as long as no index holds `ping_at`, with the room the table's fillfactor
 * keeps on each page (migration 166): indexing it would make every tick rewrite the indexes.
 */
export async function recordPings(q: Queryable, ids: readonly number[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await q.query(`UPDATE socket_sessions SET ping_at = $2 WHERE id = ANY($1::bigint[]) AND status = 'open'`, [
    ids,
    new Date(at),
  ]);
}

/**
 * Of these sessions (a process's connections), the account's open ones, with what the account has
 * running contracts for: read per held connection, not per session of the account (a public
 * deployment's account may hold a hundred thousand).
 */
export async function openSessionsOf(
  q: Queryable,
  accountId: number,
  ids: readonly number[],
): Promise<{ sessions: { id: number; classifications: string[] }[]; contracted: Set<string> }> {
  const rows = ids.length
    ? await q.query<{ id: number; classifications: string[] }>(
        `SELECT id, classifications FROM socket_sessions
          WHERE id = ANY($2::bigint[]) AND account_id = $1 AND status = 'open'`,
        [accountId, ids],
      )
    : [];
  return { sessions: rows, contracted: await contractedClassifications(q, accountId) };
}

/** A live session lost classifications (a contract ended): the list shows what it still receives. */
export async function narrowSession(q: Queryable, id: number, classifications: string[]): Promise<void> {
  await q.query('UPDATE socket_sessions SET classifications = $2 WHERE id = $1', [id, classifications]);
}

export interface SessionQuery {
  id?: number;
  status?: SessionStatus;
  /** Only sessions with a smaller id (the cursor position). */
  beforeId?: number;
  limit: number;
}

/** The account's sessions, newest first; `more` when older ones exist past `limit`. */
export async function listSessions(
  q: Queryable,
  accountId: number,
  query: SessionQuery,
): Promise<{ items: SocketSession[]; more: boolean }> {
  if (query.id !== undefined) {
    const rows = await q.query<Row>('SELECT * FROM socket_sessions WHERE account_id = $1 AND id = $2', [
      accountId,
      query.id,
    ]);
    return { items: rows.map(toSession), more: false };
  }
  const rows = await q.query<Row>(
    `SELECT * FROM socket_sessions
      WHERE account_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [accountId, query.status ?? null, query.beforeId ?? null, query.limit + 1],
  );
  return { items: rows.slice(0, query.limit).map(toSession), more: rows.length > query.limit };
}
