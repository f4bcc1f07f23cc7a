import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageCache, type PageRows } from '../../src/telegrams/page-cache.ts';
import type { TelegramQuery, TelegramSummary } from '../../src/telegrams/store.ts';
import { summaryBytes } from '../../src/telegrams/summary-bytes.ts';

const query = (extra: Partial<TelegramQuery> = {}): TelegramQuery => ({
  classifications: ['telegram.earthquake'],
  test: 'no',
  limit: 20,
  ...extra,
});

/** A list row whose headline has `headlineChars` characters. */
function row(serial: number, headlineChars = 40): TelegramSummary {
  return {
    serial,
    id: serial.toString(16).padStart(96, '0'),
    classification: 'telegram.earthquake',
    head: {
      type: 'VXSE53',
      author: 'JPOS',
      time: '2024-01-01T00:00:00.000Z',
      designation: null,
      test: false,
      xml: true,
    },
    receivedTime: '2024-01-01T00:00:01.000Z',
    format: 'xml',
    xmlReport: {
      control: {
        title: '震源・震度に関する情報',
        dateTime: '',
        status: '通常',
        editorialOffice: '',
        publishingOffice: '',
      },
      head: {
        title: '',
        reportDateTime: '',
        targetDateTime: '',
        eventId: null,
        serial: null,
        infoType: '発表',
        infoKind: '',
        infoKindVersion: '',
        headline: '地'.repeat(headlineChars),
      },
    },
    compression: 'gzip',
    encoding: 'base64',
  };
}

/** A read that counts its calls and answers `rows` rows, after the caller's other requests queued. */
function counter(rows = 1, headlineChars?: number) {
  const state = { calls: 0 };
  const read = async (): Promise<PageRows> => {
    state.calls++;
    await new Promise((resolve) => setImmediate(resolve));
    const items = Array.from({ length: rows }, (_, i) => row(i + 1, headlineChars));
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

test('memory is bounded by bytes: the least recently used pages go first', async () => {
  const budget = 1024 * 1024;
  const cache = new PageCache(budget);
  const { state, read } = counter(21);
  const pageBytes = 21 * summaryBytes(row(1));
  const fits = Math.floor(budget / pageBytes);
  const asked = fits + 20;
  for (let before = 1; before <= asked; before++) {
    await cache.page(query({ before }), 5000, read);
    assert.ok(cache.heldBytes <= budget, `${cache.heldBytes} bytes held after ${before} pages`);
  }
  assert.equal(state.calls, asked);
  await cache.page(query({ before: asked }), 5000, read);
  assert.equal(state.calls, asked, 'a recent page is still held');
  await cache.page(query({ before: 1 }), 5000, read);
  assert.equal(state.calls, asked + 1, 'the oldest pages were let go');
});

test('a page of long headlines counts their bytes, and one larger than the whole budget is not kept', async () => {
  const budget = 4 * 1024 * 1024;
  const cache = new PageCache(budget);
  // 100 rows of 64 KiB headlines: some 13 MB of text, as a JavaScript string and serialised.
  const { state, read } = counter(100, 64 * 1024);
  const q = query({ before: 200 });
  const page = await cache.page(q, 5000, read);
  assert.equal(page.items.length, 100);
  assert.ok(cache.heldBytes <= budget);
  await cache.page(q, 5000, read);
  assert.equal(state.calls, 2, 'read again: it was not kept');
  // Pages of short rows are kept beside it as before.
  const small = counter(20);
  await cache.page(query({ before: 300 }), 5000, small.read);
  await cache.page(query({ before: 300 }), 5000, small.read);
  assert.equal(small.state.calls, 1);
  assert.ok(cache.heldBytes >= 20 * summaryBytes(row(1)));
});
