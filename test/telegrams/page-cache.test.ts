import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageCache, type PageRows } from '../../src/telegrams/page-cache.ts';
import type { TelegramQuery, TelegramSummary } from '../../src/telegrams/store.ts';

const query = (extra: Partial<TelegramQuery> = {}): TelegramQuery => ({
  classifications: ['telegram.earthquake'],
  test: 'no',
  limit: 20,
  ...extra,
});

/** A read that counts its calls and answers `rows` rows, after the caller's other requests queued. */
function counter(rows = 1) {
  const state = { calls: 0 };
  const read = async (): Promise<PageRows> => {
    state.calls++;
    await new Promise((resolve) => setImmediate(resolve));
    const items = Array.from({ length: rows }, (_, i) => ({ serial: i + 1 }) as TelegramSummary);
    return { items, truncated: false };
  };
  return { state, read };
}

test('an older page below the newest known serial is read once, however often and however late it is asked', async () => {
  const cache = new PageCache();
  const { state, read } = counter();
  const q = query({ before: 100 });
  const [a, b] = await Promise.all([cache.page(q, 500, read), cache.page(q, 500, read)]);
  // Newer telegrams cannot change it: asked at a later horizon, it is the same page.
  const c = await cache.page(q, 900, read);
  assert.equal(state.calls, 1);
  assert.equal(a.items, b.items);
  assert.equal(a.items, c.items);
});

test('a page that a newer telegram could change is kept only until a newer serial is known', async () => {
  const cache = new PageCache();
  const { state, read } = counter();
  await cache.page(query(), 500, read);
  await cache.page(query(), 500, read);
  assert.equal(state.calls, 1);
  await cache.page(query(), 501, read);
  assert.equal(state.calls, 2);
  // A cursor above the newest known serial is not fixed either.
  await cache.page(query({ before: 600 }), 501, read);
  await cache.page(query({ before: 600 }), 502, read);
  assert.equal(state.calls, 4);
});

test('pages differing in any filter are different pages', async () => {
  const cache = new PageCache();
  const { state, read } = counter();
  const variants: Partial<TelegramQuery>[] = [
    {},
    { classifications: ['telegram.weather'] },
    { types: { exact: ['VXSE53'] } },
    { types: { prefix: 'VXSE' } },
    { test: 'including' },
    { formats: ['json'] },
    { receivedFrom: new Date(1000) },
    { receivedBefore: new Date(1000) },
    { limit: 10 },
    { withXmlReport: false },
    { after: 50 },
  ];
  for (const v of variants) await cache.page(query({ before: 100, ...v }), 500, read);
  assert.equal(state.calls, variants.length);
});

test('clearing forgets every page, and a read under way when it clears is not kept', async () => {
  const cache = new PageCache();
  const { state, read } = counter();
  const q = query({ before: 100 });
  await cache.page(q, 500, read);
  cache.clear();
  await cache.page(q, 500, read);
  assert.equal(state.calls, 2);

  const pending = cache.page(query({ before: 50 }), 500, read);
  cache.clear();
  await pending;
  await cache.page(query({ before: 50 }), 500, read);
  assert.equal(state.calls, 4);
});

test('a failed read is not kept', async () => {
  const cache = new PageCache();
  let calls = 0;
  const failing = async (): Promise<PageRows> => {
    calls++;
    throw new Error('database unreachable');
  };
  const q = query({ before: 100 });
  await assert.rejects(cache.page(q, 500, failing), /unreachable/);
  await assert.rejects(cache.page(q, 500, failing), /unreachable/);
  assert.equal(calls, 2);
});

test('memory is bounded: the least recently used pages go first', async () => {
  const cache = new PageCache();
  const { state, read } = counter(21);
  // 21 rows a page: the bound of 20,000 rows holds 952 pages.
  for (let before = 1; before <= 1000; before++) await cache.page(query({ before }), 5000, read);
  assert.equal(state.calls, 1000);
  await cache.page(query({ before: 1000 }), 5000, read);
  assert.equal(state.calls, 1000, 'a recent page is still held');
  await cache.page(query({ before: 1 }), 5000, read);
  assert.equal(state.calls, 1001, 'the oldest pages were let go');
});
