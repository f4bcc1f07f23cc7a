import type { Queryable } from '../db/types.ts';
import { digestSecret } from './secrets.ts';

/** The tables of keyed windows, each with the column it counts in. */
const COUNT_COLUMNS = { failure_windows: 'failures', signin_attempts: 'attempts' } as const;
/** Each table's keys are digested under their own prefix, so equal keys never meet across tables. */
const DIGEST_PREFIXES = { failure_windows: 'failures', signin_attempts: 'signin' } as const;

export type WindowTable = keyof typeof COUNT_COLUMNS;

/**
 * How often a count also deletes the windows that have ended. An ended window counts for nothing
 * (the count starts it afresh), so deleting them at every count only doubled the statements of a
 * storm of public connections (one count per batch of openings: bench/scale.ts).
 */
const PRUNE_EVERY_MS = 10_000;

/** One key's window as the shared count has it; a key never counted is `{ count: 0, endsAt: 0 }`. */
export interface KeyWindow {
  count: number;
  /** When the window ends, in ms since the epoch. */
  endsAt: number;
}

interface WindowRow {
  key_digest: string;
  window_end: Date;
  count: number;
}

/**
 * Milliseconds until the window ends when its count is over `limit`; 0 when it is not. Never more
 * than `windowMs`: a window opened by a concurrent request that read the clock a moment after `now`
 * ends a moment after `now + windowMs`.
 */
export function overLimitFor(window: KeyWindow, limit: number, now: number, windowMs: number): number {
  return window.count > limit ? Math.min(windowMs, Math.max(0, window.endsAt - now)) : 0;
}

/**
 * Counts per key in fixed windows, in a database table, so every process and node
 * shares one count: the one limiter behind the failure limits (docs/oauth.md "Rate limits (failure
 * limits)"), sign-up and the sign-in attempts (docs/security.md). Keys are stored as HMAC
 * digests: no address, account or client id is kept in the clear. Every row says when its window
 * ends, so limiters of other window lengths can share a table.
 */
export class FixedWindows {
  private readonly count: string;
  /** When (ms since the epoch) this instance's counts last deleted the ended windows. */
  private prunedAt = -Infinity;

  constructor(
    private readonly db: Queryable,
    private readonly pepper: Buffer,
    private readonly table: WindowTable,
  ) {
    this.count = COUNT_COLUMNS[table];
  }

  private digest(key: string): string {
    return digestSecret(this.pepper, `${DIGEST_PREFIXES[this.table]}:${key}`);
  }

  /** Digest → key. */
  private digests(keys: readonly string[]): Map<string, string> {
    return new Map(keys.map((key) => [this.digest(key), key]));
  }

  private windows(digests: Map<string, string>, rows: readonly WindowRow[]): Map<string, KeyWindow> {
    const found = new Map<string, KeyWindow>();
    for (const key of digests.values()) found.set(key, { count: 0, endsAt: 0 });
    for (const r of rows)
      found.set(digests.get(r.key_digest)!, { count: r.count, endsAt: r.window_end.getTime() });
    return found;
  }

  /** Each key's window as the database has it now. */
  async read(keys: readonly string[]): Promise<Map<string, KeyWindow>> {
    const digests = this.digests(keys);
    const rows = await this.db.query<WindowRow>(
      `SELECT key_digest, window_end, ${this.count} AS count FROM ${this.table} WHERE key_digest = ANY($1::text[])`,
      [[...digests.keys()]],
    );
    return this.windows(digests, rows);
  }

  /**
   * Counts one under each key at `nowMs`, once per time it is named (a window that has ended starts
   * afresh, lasting `windowMs`), and returns the counts after it. Counting and reading are one
   * statement, so concurrent callers each see their own count.
   */
  async add(keys: readonly string[], windowMs: number, nowMs: number): Promise<Map<string, KeyWindow>> {
    const times = new Map<string, number>();
    for (const key of keys) times.set(key, (times.get(key) ?? 0) + 1);
    const digests = this.digests([...times.keys()]);
    const now = new Date(nowMs);
    const end = new Date(nowMs + windowMs);
    const { table, count } = this;
    // Windows that have ended are deleted by a count every PRUNE_EVERY_MS: the table holds the
    // windows of those seconds and the running ones, never more.
    if (nowMs - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = nowMs;
      await this.db.query(`DELETE FROM ${table} WHERE window_end <= $1`, [now]);
    }
    const rows = await this.db.query<WindowRow>(
      `INSERT INTO ${table} (key_digest, window_start, window_end, ${count})
         SELECT k, $2, $3, n FROM unnest($1::text[], $4::int[]) AS u(k, n)
       ON CONFLICT (key_digest) DO UPDATE SET
         ${count} = CASE WHEN ${table}.window_end <= $2 THEN EXCLUDED.${count}
                         ELSE ${table}.${count} + EXCLUDED.${count} END,
         window_start = CASE WHEN ${table}.window_end <= $2 THEN $2 ELSE ${table}.window_start END,
         window_end = CASE WHEN ${table}.window_end <= $2 THEN $3 ELSE ${table}.window_end END
       RETURNING key_digest, window_end, ${count} AS count`,
      [[...digests.keys()], now, end, [...digests.values()].map((key) => times.get(key)!)],
    );
    return this.windows(digests, rows);
  }

  /** Forgets the keys' windows: they start afresh. */
  async clear(keys: readonly string[]): Promise<void> {
    await this.db.query(`DELETE FROM ${this.table} WHERE key_digest = ANY($1::text[])`, [
      [...this.digests(keys).keys()],
    ]);
  }

  /** Takes one count back from the key's window. */
  async subtract(key: string): Promise<void> {
    await this.db.query(
      `UPDATE ${this.table} SET ${this.count} = ${this.count} - 1 WHERE key_digest = $1 AND ${this.count} > 0`,
      [this.digest(key)],
    );
  }
}
