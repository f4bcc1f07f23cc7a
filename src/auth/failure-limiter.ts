import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret } from '../security/secrets.ts';

export interface FailureLimitOptions {
  /** Failures allowed per key within one window. */
  limit: number;
  windowMs: number;
}

/**
 * Counts failed requests per key (an address, or a client at an address) in fixed windows, in the
 * database, so every process and node shares one count (docs/oauth.md "Rate limits (failure limits)"). Once a key
 * reaches its limit, requests under it are refused until the window ends. Keys are stored as HMAC
 * digests: no address or client id is kept in the clear.
 */
export class FailureLimiter {
  constructor(
    private readonly db: Queryable,
    private readonly pepper: Buffer,
    /** Tells this limiter's keys apart from another limiter's in the shared table. */
    private readonly name: string,
    private readonly options: FailureLimitOptions,
    private readonly clock: Clock,
  ) {}

  private digests(keys: readonly string[]): string[] {
    return keys.map((key) => digestSecret(this.pepper, `failures:${this.name}:${key}`));
  }

  /** Seconds to wait before any of `keys` may try again; 0 when none is blocked. */
  async retryAfter(keys: readonly string[]): Promise<number> {
    const now = this.clock.now();
    const rows = await this.db.query<{ window_start: Date }>(
      `SELECT window_start FROM failure_windows
       WHERE key_digest = ANY($1::text[]) AND window_start > $2 AND failures >= $3`,
      [this.digests(keys), new Date(now - this.options.windowMs), this.options.limit],
    );
    let wait = 0;
    for (const r of rows) {
      wait = Math.max(wait, Math.ceil((r.window_start.getTime() + this.options.windowMs - now) / 1000));
    }
    return wait;
  }

  /** Records one failure under each key (a window that has ended starts afresh). */
  async fail(keys: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const ended = new Date(now - this.options.windowMs);
    await this.db.query('DELETE FROM failure_windows WHERE window_start <= $1', [
      new Date(now - 2 * this.options.windowMs),
    ]);
    await this.db.query(
      `INSERT INTO failure_windows (key_digest, window_start, failures)
         SELECT k, $2, 1 FROM unnest($1::text[]) AS k
       ON CONFLICT (key_digest) DO UPDATE SET
         failures = CASE WHEN failure_windows.window_start <= $3 THEN 1 ELSE failure_windows.failures + 1 END,
         window_start = CASE WHEN failure_windows.window_start <= $3 THEN $2 ELSE failure_windows.window_start END`,
      [this.digests(keys), new Date(now), ended],
    );
  }
}
