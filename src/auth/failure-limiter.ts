import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret } from '../security/secrets.ts';
import { CredentialCache } from './credential-cache.ts';

export interface FailureLimitOptions {
  /** Failures allowed per key within one window. */
  limit: number;
  windowMs: number;
}

/** The shared count of one key, as this process last saw it. */
interface WindowState {
  failures: number;
  windowStart: number;
}

interface WindowRow {
  key_digest: string;
  window_start: Date;
  failures: number;
}

const stateOf = (r: WindowRow): WindowState => ({
  failures: r.failures,
  windowStart: r.window_start.getTime(),
});

/** How long this process answers from the count it last saw, without asking the database. */
export const FAILURE_COUNT_FRESH_MS = 1000;
/** Keys whose counts are held in memory (least recently used dropped first). */
const MAX_HELD_KEYS = 10_000;

/**
 * Counts failed requests per key (an address, or a client at an address) in fixed windows, in the
 * database, so every process and node shares one count (docs/oauth.md "Rate limits (failure limits)"). Once a key
 * reaches its limit, requests under it are refused until the window ends. Keys are stored as HMAC
 * digests: no address or client id is kept in the clear.
 *
 * The check is on every request's path, so each process holds the count it last saw per key for
 * `FAILURE_COUNT_FRESH_MS`. This does not loosen the limit: every failure is recorded in the
 * database, and recording it returns the shared count, so a process learns that a key is over its
 * limit at its first failure under it, whoever caused the others; only requests already admitted
 * at that moment pass, as they do between any check and its count. Failures elsewhere under a key
 * this process has not failed on are seen within `FAILURE_COUNT_FRESH_MS`.
 */
export class FailureLimiter {
  private readonly held: CredentialCache<WindowState>;

  constructor(
    private readonly db: Queryable,
    private readonly pepper: Buffer,
    /** Tells this limiter's keys apart from another limiter's in the shared table. */
    private readonly name: string,
    private readonly options: FailureLimitOptions,
    private readonly clock: Clock,
  ) {
    this.held = new CredentialCache(FAILURE_COUNT_FRESH_MS, MAX_HELD_KEYS, () => clock.now());
  }

  private digests(keys: readonly string[]): string[] {
    return keys.map((key) => digestSecret(this.pepper, `failures:${this.name}:${key}`));
  }

  /** Seconds to wait before any of `keys` may try again; 0 when none is blocked. */
  async retryAfter(keys: readonly string[]): Promise<number> {
    const states = new Map<string, WindowState | undefined>();
    for (const digest of this.digests(keys)) states.set(digest, this.held.get(digest));
    const unknown = [...states].filter(([, state]) => !state).map(([digest]) => digest);
    if (unknown.length > 0) {
      const rows = await this.db.query<WindowRow>(
        'SELECT key_digest, window_start, failures FROM failure_windows WHERE key_digest = ANY($1::text[])',
        [unknown],
      );
      for (const digest of unknown) states.set(digest, { failures: 0, windowStart: 0 });
      for (const r of rows) states.set(r.key_digest, stateOf(r));
      for (const digest of unknown) this.held.set(digest, states.get(digest)!);
    }
    const now = this.clock.now();
    let wait = 0;
    for (const state of states.values()) {
      const ends = state!.windowStart + this.options.windowMs;
      if (state!.failures >= this.options.limit && ends > now)
        wait = Math.max(wait, Math.ceil((ends - now) / 1000));
    }
    return wait;
  }

  /** Records one failure under each key (a window that has ended starts afresh). */
  async fail(keys: readonly string[]): Promise<void> {
    for (const r of await this.record(keys)) this.held.set(r.key_digest, stateOf(r));
  }

  /**
   * Counts one request under each key before it is served, and says how many seconds to wait when
   * that takes a key over its limit (0: go on). Check and count are one statement, so concurrent
   * requests cannot all pass the check: for limits on an action itself (sign-ups), not on failures.
   */
  async take(keys: readonly string[]): Promise<number> {
    const now = this.clock.now();
    let wait = 0;
    for (const r of await this.record(keys)) {
      this.held.set(r.key_digest, stateOf(r));
      if (r.failures > this.options.limit)
        wait = Math.max(wait, Math.ceil((r.window_start.getTime() + this.options.windowMs - now) / 1000));
    }
    return wait;
  }

  private async record(keys: readonly string[]): Promise<WindowRow[]> {
    const now = this.clock.now();
    const ended = new Date(now - this.options.windowMs);
    // Limiters of other window lengths share the table: each row carries its own end.
    await this.db.query('DELETE FROM failure_windows WHERE window_end <= $1', [new Date(now)]);
    return this.db.query<WindowRow>(
      `INSERT INTO failure_windows (key_digest, window_start, window_end, failures)
         SELECT k, $2, $4, 1 FROM unnest($1::text[]) AS k
       ON CONFLICT (key_digest) DO UPDATE SET
         failures = CASE WHEN failure_windows.window_start <= $3 THEN 1 ELSE failure_windows.failures + 1 END,
         window_start = CASE WHEN failure_windows.window_start <= $3 THEN $2 ELSE failure_windows.window_start END,
         window_end = CASE WHEN failure_windows.window_start <= $3 THEN $4 ELSE failure_windows.window_end END
       RETURNING key_digest, window_start, failures`,
      [this.digests(keys), new Date(now), ended, new Date(now + this.options.windowMs)],
    );
  }
}
