import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SerialTaggedCache } from '../../src/api/serial-cache.ts';

/** A page loader that counts its reads and answers with the read's number. */
function loader() {
  const counter = { reads: 0 };
  const load = () => Promise.resolve(++counter.reads);
  return { counter, load };
}

describe('SerialTaggedCache', () => {
  const long = { maxBytes: 1 << 20, maxAgeMs: 3_600_000, bytesOf: () => 8 };

  it('keeps a page until a new serial is committed, per key', async () => {
    const source = { newestSerial: 10 };
    const cache = new SerialTaggedCache<number>(source, long);
    const { counter, load } = loader();
    assert.equal(await cache.get('a', load), 1);
    assert.equal(await cache.get('a', load), 1);
    assert.equal(await cache.get('b', load), 2, 'another key is another page');
    source.newestSerial = 11;
    assert.equal(await cache.get('a', load), 3, 'a new serial drops every page');
    assert.equal(await cache.get('b', load), 4);
    assert.equal(counter.reads, 4);
  });

  it('drops every page when stored telegrams are pruned, with no new serial', async () => {
    const source = { newestSerial: 10, generation: 0 };
    const cache = new SerialTaggedCache<number>(source, long);
    const { counter, load } = loader();
    assert.equal(await cache.get('a', load), 1);
    assert.equal(await cache.get('a', load), 1);
    source.generation = 1;
    assert.equal(await cache.get('a', load), 2);
    assert.equal(counter.reads, 2);
  });

  it('callers that come while a page is read share the read', async () => {
    const cache = new SerialTaggedCache<number>({ newestSerial: 1 }, long);
    let release!: (n: number) => void;
    let reads = 0;
    const slow = () => {
      reads++;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const pending = [cache.get('a', slow), cache.get('a', slow), cache.get('a', slow)];
    release(7);
    assert.deepEqual(await Promise.all(pending), [7, 7, 7]);
    assert.equal(reads, 1);
  });

  it('does not keep a failed read', async () => {
    const cache = new SerialTaggedCache<number>({ newestSerial: 1 }, long);
    await assert.rejects(cache.get('a', () => Promise.reject(new Error('database down'))));
    assert.equal(await cache.get('a', () => Promise.resolve(5)), 5);
  });

  it('reads again once a page is older than maxAgeMs (a rebuild changes pages without a serial)', async () => {
    const cache = new SerialTaggedCache<number>({ newestSerial: 1 }, { ...long, maxAgeMs: 0 });
    const { counter, load } = loader();
    await cache.get('a', load);
    await cache.get('a', load);
    assert.equal(counter.reads, 2);
  });

  it('holds at most maxBytes, keys and values counted, the oldest going first', async () => {
    const source = { newestSerial: 1 };
    // Values are their own size in bytes.
    const cache = new SerialTaggedCache<number>(source, {
      maxBytes: 4096,
      maxAgeMs: 3_600_000,
      bytesOf: (n) => n,
    });
    const reads: string[] = [];
    const load = (key: string, bytes: number) => () => {
      reads.push(key);
      return Promise.resolve(bytes);
    };
    await cache.get('a', load('a', 1500));
    await cache.get('b', load('b', 1500));
    assert.ok(cache.heldBytes > 3000 && cache.heldBytes <= 4096, `${cache.heldBytes}`);
    await cache.get('c', load('c', 1500)); // over the budget: 'a', the oldest, goes
    assert.ok(cache.heldBytes <= 4096, `${cache.heldBytes}`);
    await cache.get('b', load('b', 1500));
    await cache.get('c', load('c', 1500));
    await cache.get('a', load('a', 1500));
    assert.deepEqual(reads, ['a', 'b', 'c', 'a']);
    // A value larger than the whole budget is answered but not kept, and takes nothing with it.
    const held = cache.heldBytes;
    assert.equal(await cache.get('huge', load('huge', 10_000)), 10_000);
    assert.ok(cache.heldBytes <= 4096);
    await cache.get('huge', load('huge', 10_000));
    assert.deepEqual(reads, ['a', 'b', 'c', 'a', 'huge', 'huge']);
    assert.ok(held >= cache.heldBytes);
    // A long key counts too.
    await cache.get('k'.repeat(3000), load('long key', 0));
    assert.ok(cache.heldBytes <= 4096);
    source.newestSerial = 2;
    await cache.get('a', load('a', 1));
    assert.ok(cache.heldBytes < 1024, 'a new serial empties the count with the entries');
  });
});
