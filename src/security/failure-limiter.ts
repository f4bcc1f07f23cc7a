import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { CredentialCache } from './credential-cache.ts';
import { FixedWindows, overLimitFor, type KeyWindow } from './fixed-windows.ts';

export interface FailureLimitOptions {
  /** Failures allowed per key within one window. */
  limit: number;
  windowMs: number;
}

/** How long this process answers from the count it last saw, without asking the database. */
export const FAILURE_COUNT_FRESH_MS = 1000;
/** Keys whose counts are held in memory (least recently used dropped first). */
const MAX_HELD_KEYS = 10_000;

/**
 * Counts failed requests per key (an address, or a client at an address) in the shared fixed
 * windows of `failure_windows` (fixed-windows.ts), so every process and node shares one count
 * (docs/oauth.md "Rate limits (failure limits)"). Once a key reaches its limit, requests under it
 * are refused until the window ends.
 *
 * The check is on every request's path, so each process holds the count it last saw per key for
 * `FAILURE_COUNT_FRESH_MS`. This does not loosen the limit: every failure is recorded in the
 * database, and recording it returns the shared count, so a process learns that a key is over its
 * limit at its first failure under it, whoever caused the others; only requests already admitted
 * at that moment pass, as they do between any check and its count. Failures elsewhere under a key
 * this process has not failed on are seen within `FAILURE_COUNT_FRESH_MS`.
 */
export class FailureLimiter {
  private readonly windows: FixedWindows;
  /** The window of each key as this process last saw it. */
  private readonly held: CredentialCache<KeyWindow>;

  constructor(
    db: Queryable,
    pepper: Buffer,
    /** Tells this limiter's keys apart from another limiter's in the shared table. */
    private readonly name: string,
    private readonly options: FailureLimitOptions,
    private readonly clock: Clock,
  ) {
    this.windows = new FixedWindows(db, pepper, 'failure_windows');
    this.held = new CredentialCache(FAILURE_COUNT_FRESH_MS, MAX_HELD_KEYS, () => clock.now());
  }

  private named(keys: readonly string[]): string[] {
    return keys.map((key) => `${this.name}:${key}`);
  }

  /** Seconds to wait before any of `keys` may try again; 0 when none is blocked. */
  async retryAfter(keys: readonly string[]): Promise<number> {
    const windows = new Map<string, KeyWindow | undefined>(
      this.named(keys).map((k) => [k, this.held.get(k)]),
    );
    const unknown = [...windows].filter(([, w]) => !w).map(([key]) => key);
    if (unknown.length > 0) {
      for (const [key, w] of await this.windows.read(unknown)) {
        this.held.set(key, w);
        windows.set(key, w);
      }
    }
    const now = this.clock.now();
    let waitMs = 0;
    // A key at its limit refuses the next request: the one that would take it over.
    for (const w of windows.values())
      waitMs = Math.max(waitMs, overLimitFor(w!, this.options.limit - 1, now, this.options.windowMs));
    return Math.ceil(waitMs / 1000);
  }

  /** Records one failure under each key (a window that has ended starts afresh). */
  async fail(keys: readonly string[]): Promise<void> {
    await this.count(keys);
  }

  /**
   * Counts one request under each key before it is served, and says how many seconds to wait when
   * that takes a key over its limit (0: go on). Check and count are one statement, so concurrent
   * requests cannot all pass the check: for limits on an action itself (sign-ups), not on failures.
   */
  async take(keys: readonly string[]): Promise<number> {
    const now = this.clock.now();
    let waitMs = 0;
    for (const [key, w] of await this.windows.add(this.named(keys), this.options.windowMs, now)) {
      this.held.set(key, w);
      waitMs = Math.max(waitMs, overLimitFor(w, this.options.limit, now, this.options.windowMs));
    }
    return Math.ceil(waitMs / 1000);
  }

  /**
   * Counts one request under each key (a key may come several times) without judging them: the
   * windows after the count are returned (`full` judges one) and seen by `waitFromSeen`. For a
   * limit judged before its count is written (public-admission.ts), where waiting for the statement
   * would cost more than the few requests that pass while it runs.
   */
  async count(keys: readonly string[]): Promise<Map<string, KeyWindow>> {
    const named = this.named(keys);
    const keyOf = new Map(named.map((n, i) => [n, keys[i]!]));
    const byKey = new Map<string, KeyWindow>();
    for (const [n, w] of await this.windows.add(named, this.options.windowMs, this.clock.now())) {
      this.held.set(n, w);
      byKey.set(keyOf.get(n)!, w);
    }
    return byKey;
  }

  /** Whether a window `count` returned is at the limit: one more request under its key is refused. */
  full(window: KeyWindow): boolean {
    // As retryAfter judges a seen window: at its limit, the next request would take it over.
    return overLimitFor(window, this.options.limit - 1, this.clock.now(), this.options.windowMs) > 0;
  }

  /**
   * Seconds to wait before one more request under `key`, judged without the database: from the
   * window this process last saw (counted or read within FAILURE_COUNT_FRESH_MS; none seen counts as
   * empty) and `uncounted` requests let through whose count has not been answered yet.
   */
  waitFromSeen(key: string, uncounted: number): number {
    const now = this.clock.now();
    const seen = this.held.get(`${this.name}:${key}`);
    const running = seen !== undefined && seen.endsAt > now;
    const window = {
      count: (running ? seen.count : 0) + uncounted + 1,
      endsAt: running ? seen.endsAt : now + this.options.windowMs,
    };
    return Math.ceil(overLimitFor(window, this.options.limit, now, this.options.windowMs) / 1000);
  }
}
