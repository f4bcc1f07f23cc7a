/**
 * Races on the real database made deterministic: a transaction held open at a chosen point, and
 * waiting until another session waits for a lock it holds (PostgreSQL; PGlite runs one
 * transaction at a time).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Queryable } from '../../src/db/types.ts';

/** Sessions of the test database waiting for a lock now (PostgreSQL). */
export async function lockWaitCount(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return row!.n;
}

/** Resolves once `n` sessions of the test database wait for a lock (PostgreSQL); fails after 5 s. */
export async function lockWaiters(db: Db, n: number): Promise<void> {
  const giveUpAt = Date.now() + 5000;
  for (;;) {
    assert.ok(Date.now() < giveUpAt, `${n} sessions waiting for a lock`);
    if ((await lockWaitCount(db)) >= n) return;
    await sleep(10);
  }
}

/** A transaction held open after `begin` ran in it until `release` is called; then `end` runs in it. */
export function heldTransaction(
  db: Db,
  begin: (q: Queryable) => Promise<unknown>,
  end: (q: Queryable) => Promise<unknown> = async () => {},
) {
  let release = () => {};
  let begun = () => {};
  const started = new Promise<void>((resolve) => (begun = resolve));
  const done = db.tx(async (q) => {
    await begin(q);
    begun();
    await new Promise<void>((resolve) => (release = resolve));
    await end(q);
  });
  return { started, done, release: () => release() };
}
