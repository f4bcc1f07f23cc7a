import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.ts';
import { FailureLimiter } from '../../src/auth/failure-limiter.ts';

test('a key is blocked after `limit` failures until its window ends', () => {
  const clock = new ManualClock(1_000_000);
  const limiter = new FailureLimiter({ limit: 3, windowMs: 60_000, maxKeys: 100 }, clock);
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.retryAfter(['ip:a']), 0);
    limiter.fail(['ip:a']);
  }
  assert.equal(limiter.retryAfter(['ip:a']), 60);
  assert.equal(limiter.retryAfter(['ip:b']), 0);
  clock.advance(59_001);
  assert.equal(limiter.retryAfter(['ip:a', 'ip:b']), 1);
  clock.advance(1_000);
  assert.equal(limiter.retryAfter(['ip:a']), 0);
  limiter.fail(['ip:a']);
  assert.equal(limiter.retryAfter(['ip:a']), 0);
});

test('memory stays bounded: the oldest keys are forgotten', () => {
  const clock = new ManualClock(0);
  const limiter = new FailureLimiter({ limit: 1, windowMs: 60_000, maxKeys: 10 }, clock);
  for (let i = 0; i < 1000; i++) limiter.fail([`ip:${i}`]);
  assert.equal(limiter.retryAfter(['ip:0']), 0);
  assert.equal(limiter.retryAfter(['ip:999']), 60);
});
