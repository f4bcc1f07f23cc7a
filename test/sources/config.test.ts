import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const upstream = { NAMAZU_SOURCES: 'upstream', NAMAZU_UPSTREAM_URL: 'https://api.example.com' };

test('no source runs by default; the JMA feeds default to the eight published feeds, polled every minute', () => {
  const c = loadConfig({});
  assert.deepEqual(c.sources, []);
  assert.equal(c.jmaFeedIntervalMs, 60_000);
  assert.equal(c.jmaFeedUrls.length, 8);
  assert.ok(c.jmaFeedUrls.includes('https://www.data.jma.go.jp/developer/xml/feed/eqvol.xml'));
  assert.ok(c.jmaFeedUrls.includes('https://www.data.jma.go.jp/developer/xml/feed/regular_l.xml'));
  assert.equal(c.upstreamConnections, 1);
  assert.equal(c.upstreamDataUrl, null);
});

test('source settings are parsed', () => {
  const c = loadConfig({
    ...upstream,
    NAMAZU_SOURCES: 'jma-feed, upstream',
    NAMAZU_JMA_FEED_URLS: 'http://127.0.0.1:9/a.xml,http://127.0.0.1:9/b_l.xml',
    NAMAZU_JMA_FEED_INTERVAL_MS: '90000',
    NAMAZU_UPSTREAM_API_KEY: 'sk.x',
    NAMAZU_UPSTREAM_CLASSIFICATIONS: 'telegram.earthquake,eew.forecast',
    NAMAZU_UPSTREAM_CONNECTIONS: '2',
    NAMAZU_UPSTREAM_DATA_URL: 'https://data.example.com',
  });
  assert.deepEqual(c.sources, ['jma-feed', 'upstream']);
  assert.equal(c.upstreamDataUrl, 'https://data.example.com');
  assert.deepEqual(c.jmaFeedUrls, ['http://127.0.0.1:9/a.xml', 'http://127.0.0.1:9/b_l.xml']);
  assert.equal(c.jmaFeedIntervalMs, 90_000);
  assert.deepEqual(c.upstreamClassifications, ['telegram.earthquake', 'eew.forecast']);
  assert.equal(c.upstreamConnections, 2);
});

test('invalid source settings are refused with one line naming the setting', () => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ NAMAZU_SOURCES: 'jma-feed,rss' }, /^NAMAZU_SOURCES must be one of jma-feed, upstream, got "rss"$/],
    [{ NAMAZU_SOURCES: 'jma-feed,' }, /^NAMAZU_SOURCES must be a comma-separated list without empty items/],
    [
      { NAMAZU_JMA_FEED_INTERVAL_MS: '5000' },
      /^NAMAZU_JMA_FEED_INTERVAL_MS must be between 30000 and 3600000, got 5000$/,
    ],
    [{ NAMAZU_JMA_FEED_URLS: 'ftp://x/feed.xml' }, /^NAMAZU_JMA_FEED_URLS must be a http: or https: URL/],
    [{ NAMAZU_UPSTREAM_CONNECTIONS: '3' }, /^NAMAZU_UPSTREAM_CONNECTIONS must be one of 1, 2, got "3"$/],
    [{ NAMAZU_SOURCES: 'upstream' }, /^NAMAZU_SOURCES=upstream needs NAMAZU_UPSTREAM_URL$/],
    [upstream, /^NAMAZU_SOURCES=upstream needs NAMAZU_UPSTREAM_API_KEY or NAMAZU_UPSTREAM_CLIENT_ID/],
    [
      { ...upstream, NAMAZU_UPSTREAM_CLIENT_ID: 'c' },
      /CLIENT_ID and NAMAZU_UPSTREAM_CLIENT_SECRET go together$/,
    ],
    [
      {
        ...upstream,
        NAMAZU_UPSTREAM_API_KEY: 'k',
        NAMAZU_UPSTREAM_CLIENT_ID: 'c',
        NAMAZU_UPSTREAM_CLIENT_SECRET: 's',
      },
      /exclude each other/,
    ],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) =>
        err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

test('an upstream with client credentials needs no API key', () => {
  const c = loadConfig({ ...upstream, NAMAZU_UPSTREAM_CLIENT_ID: 'c', NAMAZU_UPSTREAM_CLIENT_SECRET: 's' });
  assert.equal(c.upstreamClientId, 'c');
  assert.equal(c.upstreamApiKey, null);
});
