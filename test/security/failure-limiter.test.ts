import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.ts';
import { FAILURE_COUNT_FRESH_MS, FailureLimiter } from '../../src/security/failure-limiter.ts';
import { digestSecret } from '../../src/security/secrets.ts';
import type { Queryable } from '../../src/db/types.ts';
import { startTestServer } from '../support/server.ts';

/** The database, each statement's text recorded in `queries` as it is sent. */
function recording(db: Queryable, queries: string[]): Queryable {
  return {
    query: (sql, params) => {
      queries.push(sql);
      return db.query(sql, params);
    },
    exec: (sql) => db.exec(sql),
  };
}

test('a key is blocked after `limit` failures until its window ends', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(1_000_000);
    const limiter = new FailureLimiter(
      server.ctx.db,
      server.ctx.pepper,
      'test',
      { limit: 3, windowMs: 60_000 },
      clock,
    );
    for (let i = 0; i < 3; i++) {
      assert.equal(await limiter.retryAfter(['ip:a']), 0);
      await limiter.fail(['ip:a']);
    }
    assert.equal(await limiter.retryAfter(['ip:a']), 60);
    assert.equal(await limiter.retryAfter(['ip:b']), 0);
    clock.advance(59_001);
    assert.equal(await limiter.retryAfter(['ip:a', 'ip:b']), 1);
    clock.advance(1_000);
    assert.equal(await limiter.retryAfter(['ip:a']), 0);
    await limiter.fail(['ip:a']);
    assert.equal(await limiter.retryAfter(['ip:a']), 0);
  } finally {
    await server.close();
  }
});

test('two processes share one count, and only digests of the keys are stored', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(5_000_000);
    const options = { limit: 2, windowMs: 60_000 };
    // Two limiters over one database stand for two nodes.
    const a = new FailureLimiter(server.ctx.db, server.ctx.pepper, 'token-ip', options, clock);
    const b = new FailureLimiter(server.ctx.db, server.ctx.pepper, 'token-ip', options, clock);
    await a.fail(['198.51.100.7']);
    assert.equal(await b.retryAfter(['198.51.100.7']), 0);
    await b.fail(['198.51.100.7']);
    assert.equal(await b.retryAfter(['198.51.100.7']), 60, 'the shared count came back with the failure');
    // `a` answers from the count it saw for up to FAILURE_COUNT_FRESH_MS, then reads the shared one.
    clock.advance(FAILURE_COUNT_FRESH_MS);
    assert.equal(await a.retryAfter(['198.51.100.7']), 59, 'the second failure on another node counts');
    const other = new FailureLimiter(server.ctx.db, server.ctx.pepper, 'other', options, clock);
    assert.equal(await other.retryAfter(['198.51.100.7']), 0, 'limiters keep their own counts');
    const rows = await server.ctx.db.query<{ key_digest: string }>('SELECT key_digest FROM failure_windows');
    assert.ok(rows.length > 0);
    for (const r of rows) assert.doesNotMatch(r.key_digest, /198\.51/);
    // Windows long over are deleted by the next failure: the table does not grow without bound.
    clock.advance(10 * 60_000);
    await a.fail(['203.0.113.1']);
    const left = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM failure_windows');
    assert.equal(left[0]!.n, 1);
  } finally {
    await server.close();
  }
});

test('a "not blocked" answer is held briefly: the check costs no query on every request', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(9_000_000);
    const queries: string[] = [];
    const counted = recording(server.ctx.db, queries);
    const options = { limit: 3, windowMs: 60_000 };
    const here = new FailureLimiter(counted, server.ctx.pepper, 'token-ip', options, clock);
    const elsewhere = new FailureLimiter(server.ctx.db, server.ctx.pepper, 'token-ip', options, clock);
    for (let i = 0; i < 100; i++) assert.equal(await here.retryAfter(['192.0.2.1', '192.0.2.1 c']), 0);
    assert.equal(queries.length, 1, 'one query for 100 checks within the freshness');
    clock.advance(FAILURE_COUNT_FRESH_MS);
    assert.equal(await here.retryAfter(['192.0.2.1']), 0);
    assert.equal(queries.length, 2, 'read again once the held count is stale');

    // Another node brings the key to its limit; this one still admits from its held count until
    // its own first failure under the key, which returns the shared count: refused at once.
    for (let i = 0; i < 3; i++) await elsewhere.fail(['192.0.2.1']);
    assert.equal(await here.retryAfter(['192.0.2.1']), 0);
    await here.fail(['192.0.2.1']);
    assert.equal(await here.retryAfter(['192.0.2.1']), 60);
    // A refusal also holds until the window ends (read again each freshness period).
    clock.advance(30_000);
    assert.equal(await here.retryAfter(['192.0.2.1']), 30);
    clock.advance(29_999);
    assert.equal(await here.retryAfter(['192.0.2.1']), 1);
    clock.advance(1);
    assert.equal(await here.retryAfter(['192.0.2.1']), 0);
  } finally {
    await server.close();
  }
});

test('take() counts before it answers; a short window’s cleanup leaves a long window running', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(20_000_000);
    const hourly = new FailureLimiter(
      server.ctx.db,
      server.ctx.pepper,
      'hourly',
      { limit: 2, windowMs: 3_600_000 },
      clock,
    );
    const minutely = new FailureLimiter(
      server.ctx.db,
      server.ctx.pepper,
      'minutely',
      { limit: 2, windowMs: 60_000 },
      clock,
    );
    // Three at once: the check and the count are one statement, so exactly one is over.
    const waits = await Promise.all([1, 2, 3].map(() => hourly.take(['198.51.100.9'])));
    assert.deepEqual(
      waits.sort((a, b) => a - b),
      [0, 0, 3600],
    );
    clock.advance(10 * 60_000);
    await minutely.take(['198.51.100.9']); // clears the ended windows, not the hourly one
    assert.equal(await hourly.take(['198.51.100.9']), 3000, 'the hourly window still counts');
    clock.advance(50 * 60_000);
    assert.equal(await hourly.take(['198.51.100.9']), 0, 'a new window');
  } finally {
    await server.close();
  }
});

test('count() writes a batch in one statement, and waitFromSeen() judges the next request from the windows seen', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(30_000_000);
    const limiter = new FailureLimiter(
      server.ctx.db,
      server.ctx.pepper,
      'batch',
      { limit: 3, windowMs: 60_000 },
      clock,
    );
    // Nothing seen yet: judged as an empty window, plus those let through and not yet counted.
    assert.equal(limiter.waitFromSeen('a', 0), 0);
    assert.equal(limiter.waitFromSeen('a', 2), 0);
    assert.equal(limiter.waitFromSeen('a', 3), 60);
    assert.equal(await limiter.take(['a']), 0);
    const windows = await limiter.count(['a', 'b', 'a', 'b', 'a']);
    assert.deepEqual([...windows.keys()].sort(), ['a', 'b']);
    assert.equal(windows.get('a')!.count, 4);
    assert.equal(windows.get('b')!.count, 2);
    assert.equal(windows.get('a')!.endsAt, 30_000_000 + 60_000);
    // full(): a window at its limit (or over) refuses the next request; one below does not.
    assert.equal(limiter.full(windows.get('a')!), true);
    assert.equal(limiter.full(windows.get('b')!), false);
    assert.equal(limiter.full({ count: 3, endsAt: 30_000_000 + 60_000 }), true);
    assert.equal(limiter.full({ count: 3, endsAt: 30_000_000 }), false);
    const count = async (key: string) =>
      (
        await server.ctx.db.query<{ failures: number }>(
          `SELECT failures FROM failure_windows WHERE key_digest = $1`,
          [digestSecret(server.ctx.pepper, `failures:batch:${key}`)],
        )
      )[0]?.failures;
    assert.equal(await count('a'), 4);
    assert.equal(await count('b'), 2);
    // a is over its limit until its window ends; b has one left, none once one more is uncounted.
    clock.advance(500);
    assert.equal(limiter.waitFromSeen('a', 0), 60);
    assert.equal(limiter.waitFromSeen('b', 0), 0);
    assert.equal(limiter.waitFromSeen('b', 1), 60);
    // What was seen is forgotten after FAILURE_COUNT_FRESH_MS (another process may have counted).
    clock.advance(FAILURE_COUNT_FRESH_MS);
    assert.equal(limiter.waitFromSeen('a', 0), 0);
    assert.equal(await limiter.retryAfter(['a']), 59);
    // A window that has ended starts afresh with the batch's count.
    clock.advance(60_000);
    assert.equal((await limiter.count(['a', 'a'])).get('a')!.count, 2);
    assert.equal(await count('a'), 2);
  } finally {
    await server.close();
  }
});

test('counts close together delete the ended windows once: a storm of public connections costs one statement per batch, not two', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(30_000_000);
    const queries: string[] = [];
    const counted = recording(server.ctx.db, queries);
    const statements = () => queries.map((sql) => sql.trim().split(/\s+/)[0]);
    const limiter = new FailureLimiter(
      counted,
      server.ctx.pepper,
      'public',
      { limit: 100, windowMs: 60_000 },
      clock,
    );
    for (let i = 0; i < 50; i++) {
      await limiter.count([`192.0.2.${i}`]);
      clock.advance(100);
    }
    assert.equal(
      statements().filter((s) => s === 'DELETE').length,
      1,
      'the ended windows deleted once in 5 s',
    );
    assert.equal(statements().filter((s) => s === 'INSERT').length, 50);
    // Later the ended ones go as before: the table does not grow without bound.
    clock.advance(2 * 60_000);
    await limiter.count(['198.51.100.1']);
    const left = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM failure_windows');
    assert.equal(left[0]!.n, 1);
  } finally {
    await server.close();
  }
});
