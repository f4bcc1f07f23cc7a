import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AtomRejected, parseAtom } from '../../src/sources/atom.ts';
import { backoffDelay } from '../../src/sources/backoff.ts';
import { atom } from './feed-server.ts';

test('an Atom feed gives its entries in document order with id, link and updated', () => {
  const entries = parseAtom(atom('https://x.test', ['a_VXSE51_010000.xml', 'b_VXSE53_010000.xml']));
  assert.deepEqual(entries, [
    {
      id: 'https://x.test/data/b_VXSE53_010000.xml',
      link: 'https://x.test/data/b_VXSE53_010000.xml',
      updated: '2026-11-23T00:00:00+09:00',
    },
    {
      id: 'https://x.test/data/a_VXSE51_010000.xml',
      link: 'https://x.test/data/a_VXSE51_010000.xml',
      updated: '2026-11-23T00:00:00+09:00',
    },
  ]);
});

test('anything but a complete Atom feed is refused', () => {
  const refused: [string, RegExp][] = [
    ['<?xml version="1.0"?><rss><channel/></rss>', /not an Atom feed/],
    ['<!DOCTYPE feed [<!ENTITY x "y">]><feed xmlns="http://www.w3.org/2005/Atom"/>', /DOCTYPE/],
    ['<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id></entry></feed>', /without id or link/],
    ['<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id>', /malformed|truncated/],
    ['', /malformed|truncated/],
  ];
  for (const [text, message] of refused) {
    assert.throws(
      () => parseAtom(text),
      (err: unknown) => err instanceof AtomRejected && message.test(err.message),
      text,
    );
  }
});

test('backoff doubles per failure up to its cap, with jitter between half and all of it', () => {
  assert.equal(
    backoffDelay(1, 1000, 60_000, () => 0),
    500,
  );
  assert.equal(
    backoffDelay(1, 1000, 60_000, () => 1),
    1000,
  );
  assert.equal(
    backoffDelay(4, 1000, 60_000, () => 1),
    8000,
  );
  assert.equal(
    backoffDelay(4, 1000, 60_000, () => 0),
    4000,
  );
  assert.equal(
    backoffDelay(30, 1000, 60_000, () => 1),
    60_000,
  );
  assert.equal(
    backoffDelay(30, 1000, 60_000, () => 0),
    30_000,
  );
});
