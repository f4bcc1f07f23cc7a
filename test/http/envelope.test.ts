import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envelope } from '../../src/http/envelope.ts';

test('response ids are 16 hex digits and never repeat, across the refills of their random block', () => {
  const seen = new Set<string>();
  // Several refills of the 1,024-id block.
  for (let i = 0; i < 5000; i++) {
    const { responseId } = envelope(0);
    assert.match(responseId, /^[0-9a-f]{16}$/);
    seen.add(responseId);
  }
  assert.equal(seen.size, 5000);
});

test('the response time is the given instant in ISO 8601 UTC', () => {
  assert.equal(envelope(Date.UTC(2026, 0, 2, 3, 4, 5, 6)).responseTime, '2026-01-02T03:04:05.006Z');
});
