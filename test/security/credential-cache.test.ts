/**
 * The bounded caches of credentials and digests: at most their number of entries, the least
 * recently used dropped first, and an entry expired at exactly its deadline.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CredentialCache, growingLru } from '../../src/security/credential-cache.ts';

test('growingLru holds at most its number of entries and drops the least recently used first', () => {
  const lru = growingLru<string, number>(3);
  for (const key of ['a', 'b', 'c']) lru.set(key, key.charCodeAt(0));
  assert.equal(lru.get('a'), 97); // a is now the most recently used: b goes first
  lru.set('d', 100);
  assert.equal(lru.size, 3);
  assert.equal(lru.has('b'), false);
  assert.deepEqual([...lru.keys()].sort(), ['a', 'c', 'd']);
  lru.set('e', 101);
  lru.set('f', 102);
  assert.equal(lru.size, 3);
  assert.deepEqual([...lru.keys()].sort(), ['d', 'e', 'f']);
});

test('a cache of 100,000 entries stays bounded when far more keys pass through it', () => {
  const lru = growingLru<string, number>(100_000);
  for (let i = 0; i < 250_000; i++) lru.set(`key-${i}`, i);
  assert.equal(lru.size, 100_000);
  assert.equal(lru.has('key-149999'), false);
  assert.equal(lru.get('key-150000'), 150_000);
  assert.equal(lru.get('key-249999'), 249_999);
});

test('CredentialCache expires an entry at its deadline, and at notAfter when that comes first', () => {
  let now = 1_000;
  const cache = new CredentialCache<string>(60_000, 2, () => now);
  cache.set('x', 'long');
  cache.set('y', 'short', 1_500);
  now = 1_499;
  assert.equal(cache.get('y'), 'short');
  now = 1_500;
  assert.equal(cache.get('y'), undefined);
  now = 60_999;
  assert.equal(cache.get('x'), 'long');
  now = 61_000;
  assert.equal(cache.get('x'), undefined);
  // Bounded: a third entry drops the least recently used.
  now = 0;
  cache.set('p', '1');
  cache.set('q', '2');
  cache.set('r', '3');
  assert.equal(cache.get('p'), undefined);
  assert.equal(cache.get('r'), '3');
});
