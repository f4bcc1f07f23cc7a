import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import type { Db } from '../../../src/db/types.ts';
import {
  countSigninAttempt,
  forgiveSigninAttempt,
  type SigninLimits,
} from '../../../src/console/signin/signin-limits.ts';
import { openTestDb } from '../../support/database.ts';

const pepper = Buffer.alloc(32, 3);
const limits: SigninLimits = {
  windowMs: 60_000,
  perAddressAndAccount: 3,
  perIp: 5,
  perAccount: 4,
  baseDelayMs: 100,
  maxDelayMs: 400,
};
const attempt = (clock: ManualClock, email: string, ip: string) =>
  countSigninAttempt(db, pepper, clock, limits, email, ip);
let db: Db;
let closeDb: () => Promise<void>;

before(async () => ({ db, close: closeDb } = await openTestDb()));
after(() => closeDb());

test('per IP × account: the attempt over the limit waits until the window ends; another IP is not refused', async () => {
  const clock = new ManualClock(1_000_000);
  for (let i = 0; i < 3; i++) assert.equal((await attempt(clock, 'a@x', '10.0.0.1')).waitMs, 0);
  clock.advance(10_000);
  assert.equal((await attempt(clock, ' A@X', '10.0.0.1')).waitMs, 50_000);
  assert.equal((await attempt(clock, 'a@x', '10.0.0.2')).waitMs, 0);
  clock.advance(50_000);
  assert.equal((await attempt(clock, 'a@x', '10.0.0.1')).waitMs, 0);
});

test('per account: never refused, delayed by a doubling delay up to the cap', async () => {
  const clock = new ManualClock(3_000_000);
  const delays = [];
  for (let i = 0; i < 8; i++) {
    const v = await attempt(clock, 'owner@x', `10.0.3.${i}`);
    assert.equal(v.waitMs, 0);
    delays.push(v.delayMs);
  }
  assert.deepEqual(delays, [0, 0, 0, 0, 100, 200, 400, 400]);
  await forgiveSigninAttempt(db, pepper, 'owner@x', '10.0.3.99');
  assert.deepEqual(await attempt(clock, 'owner@x', '10.0.3.99'), { waitMs: 0, delayMs: 0 });
});

test('per IP: many addresses from one IP are limited too; a success gives the attempt back', async () => {
  const clock = new ManualClock(5_000_000);
  for (let i = 0; i < 5; i++) assert.equal((await attempt(clock, `u${i}@x`, '10.0.1.1')).waitMs, 0);
  assert.ok((await attempt(clock, 'u9@x', '10.0.1.1')).waitMs > 0);
  await forgiveSigninAttempt(db, pepper, 'u9@x', '10.0.1.1');
  await forgiveSigninAttempt(db, pepper, 'u8@x', '10.0.1.1');
  assert.equal((await attempt(clock, 'u7@x', '10.0.1.1')).waitMs, 0);
  // Another IP is not affected.
  assert.equal((await attempt(clock, 'u7@x', '10.0.1.2')).waitMs, 0);
});

test('concurrent attempts cannot overtake the count', async () => {
  const clock = new ManualClock(9_000_000);
  const verdicts = await Promise.all(Array.from({ length: 12 }, () => attempt(clock, 'race@x', '10.0.2.1')));
  assert.equal(verdicts.filter((v) => v.waitMs === 0).length, 3);
});

test('only digests of addresses and IPs are stored', async () => {
  const rows = await db.query<{ key_digest: string }>('SELECT key_digest FROM signin_attempts');
  assert.ok(rows.length > 0);
  assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_digest)));
});
