import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envelope, ItemsAnswer } from '../../src/http/envelope.ts';

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

test('an items answer is the envelope, the items and the cursors, stamped anew for each request', () => {
  const items = Buffer.from('[{"title":"震度速報"}]', 'utf8');
  const answer = new ItemsAnswer(items, { nextPooling: 'abc', nextPoolingInterval: 2000 });
  const at = Date.UTC(2026, 10, 27, 3, 4, 5, 6);
  const first = answer.stamp(at);
  const second = answer.stamp(at + 1);
  const a = JSON.parse(first.toString('utf8'));
  const b = JSON.parse(second.toString('utf8'));
  assert.deepEqual(Object.keys(a), [
    'responseId',
    'responseTime',
    'status',
    'items',
    'nextPooling',
    'nextPoolingInterval',
  ]);
  assert.deepEqual(
    { ...a, responseId: undefined },
    {
      responseId: undefined,
      responseTime: '2026-11-27T03:04:05.006Z',
      status: 'ok',
      items: [{ title: '震度速報' }],
      nextPooling: 'abc',
      nextPoolingInterval: 2000,
    },
  );
  assert.equal(b.responseTime, '2026-11-27T03:04:05.007Z');
  assert.match(a.responseId, /^[0-9a-f]{16}$/);
  assert.notEqual(a.responseId, b.responseId);
  assert.equal(
    JSON.parse(answer.stamp(at).toString()).responseTime,
    a.responseTime,
    'the kept bytes unchanged',
  );
});

test('an items answer stamped with a time past year 9999 is still well-formed', () => {
  const answer = new ItemsAnswer(Buffer.from('[]'), { nextPooling: 'x' });
  const late = Date.UTC(10000, 0, 1);
  const body = JSON.parse(answer.stamp(late).toString());
  assert.equal(body.responseTime, new Date(late).toISOString());
  assert.deepEqual(body.items, []);
  assert.equal(body.nextPooling, 'x');
});
