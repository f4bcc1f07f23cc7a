/**
 * Admission of anonymous connections (src/realtime/public-admission.ts): judged without waiting for
 * the database, from the rate's windows as this process last saw them plus what it admitted and
 * has not had counted yet; the counts written together after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.ts';
import type { Queryable } from '../../src/db/types.ts';
import { PublicAdmission, type Admission } from '../../src/realtime/public-admission.ts';
import { FailureLimiter } from '../../src/security/failure-limiter.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const LIMIT = 5;

function admissionOn(server: TestServer, db: Queryable, clock: ManualClock, errors: unknown[] = []) {
  const rate = new FailureLimiter(
    db,
    server.ctx.pepper,
    'public-connect-test',
    { limit: LIMIT, windowMs: 60_000 },
    clock,
  );
  const admission = new PublicAdmission(
    { maxConnections: 1000, maxPerAddress: 1000 },
    rate,
    server.ctx.metrics,
    clock,
    (err) => errors.push(err),
  );
  return { admission, rate };
}

const refusedFor = (a: Admission) => (a.ok ? null : a.reason);

/** The openings counted in the shared table, every address together. */
async function countedIn(server: TestServer): Promise<number> {
  const rows = await server.ctx.db.query<{ n: number }>(
    'SELECT coalesce(sum(failures), 0)::int AS n FROM failure_windows',
  );
  return rows[0]!.n;
}

test('a storm from one address is admitted up to the rate at once, counted together after, and refused until its window ends', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(40_000_000);
    const inserts: string[] = [];
    const db: Queryable = {
      query: (sql, params) => {
        if (/^\s*INSERT INTO failure_windows/.test(sql)) inserts.push(sql);
        return server.ctx.db.query(sql, params);
      },
      exec: (sql) => server.ctx.db.exec(sql),
    };
    const { admission } = admissionOn(server, db, clock);
    // Twelve openings in one turn of the loop: nothing is counted yet, so the ones let through are
    // what holds the line.
    const storm = Array.from({ length: 12 }, () => admission.admit('192.0.2.7', 'websocket'));
    assert.deepEqual(storm.map(refusedFor), [...Array(LIMIT).fill(null), ...Array(12 - LIMIT).fill('rate')]);
    assert.ok(storm.slice(LIMIT).every((a) => !a.ok && a.retryAfterSeconds === 60));
    assert.equal(admission.size, LIMIT);
    // Another address is not held back by it.
    assert.equal(admission.admit('198.51.100.1', 'websocket').ok, true);
    await waitFor(async () => (await countedIn(server)) === LIMIT + 1, {
      message: 'the admitted ones counted',
    });
    assert.equal(inserts.length, 1, 'one statement for the openings of a tenth of a second');
    // Past the 1 s a seen count is trusted, the address at its rate stays refused, without a read.
    clock.advance(30_000);
    const later = admission.admit('192.0.2.7', 'stream');
    assert.equal(refusedFor(later), 'rate');
    assert.equal(!later.ok && later.retryAfterSeconds, 30);
    clock.advance(30_000);
    assert.equal(admission.admit('192.0.2.7', 'stream').ok, true, 'a new window');
  } finally {
    await server.close();
  }
});

test('what another process counted is seen at the next count: the address is refused from then on', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(50_000_000);
    const here = admissionOn(server, server.ctx.db, clock);
    const { admission: elsewhere } = admissionOn(server, server.ctx.db, clock);
    for (let i = 0; i < 4; i++) assert.equal(elsewhere.admit('203.0.113.9', 'websocket').ok, true);
    await waitFor(async () => (await countedIn(server)) === 4, { message: 'the other process counted' });
    // This process has seen nothing of the address: it admits one, and its count tells it the rest.
    assert.equal(here.admission.admit('203.0.113.9', 'websocket').ok, true);
    await waitFor(() => here.rate.waitFromSeen('203.0.113.9', 0) > 0, { message: 'its count answered' });
    assert.equal(refusedFor(here.admission.admit('203.0.113.9', 'websocket')), 'rate');
    assert.equal(await countedIn(server), LIMIT);
  } finally {
    await server.close();
  }
});

test('with the counts failing, openings are admitted by the caps alone and the failure is told', async () => {
  const server = await startTestServer({ listen: false });
  try {
    const clock = new ManualClock(60_000_000);
    const failing: Queryable = {
      query: () => Promise.reject(new Error('connection refused')),
      exec: () => Promise.reject(new Error('connection refused')),
    };
    const errors: unknown[] = [];
    const { admission } = admissionOn(server, failing, clock, errors);
    for (let i = 0; i < 3; i++) assert.equal(admission.admit('192.0.2.50', 'websocket').ok, true);
    await waitFor(() => errors.length === 1, {
      message: 'the failed count told (one statement for the three)',
    });
    // None is left uncounted-and-pending: the address has its whole rate again.
    for (let i = 0; i < LIMIT; i++) assert.equal(admission.admit('192.0.2.50', 'websocket').ok, true);
    assert.equal(admission.size, 3 + LIMIT);
  } finally {
    await server.close();
  }
});
