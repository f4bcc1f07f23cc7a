import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, defaults, loadConfig } from '../src/config.ts';

test('no configuration gives the documented defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.dataDir, './data');
  assert.equal(c.bus, 'memory');
  assert.equal(c.pollingIntervalMs, 2000);
  assert.equal(c.demo, true);
  assert.deepEqual(c, defaults());
});

test('environment variables are parsed and flags override them', () => {
  const c = loadConfig(
    { NAMAZU_PORT: '9000', NAMAZU_DEMO: '0', NAMAZU_DATABASE_URL: 'postgres://u@127.0.0.1/db' },
    { '--port': '9100', '--data-dir': '/tmp/x' },
  );
  assert.equal(c.port, 9100);
  assert.equal(c.demo, false);
  assert.equal(c.dataDir, '/tmp/x');
  assert.equal(c.databaseUrl, 'postgres://u@127.0.0.1/db');
});

test('refresh tokens rotate for nobody unless the operator says so (NAMAZU_REFRESH_ROTATION)', () => {
  assert.equal(loadConfig({}).refreshRotation, 'off');
  assert.equal(loadConfig({ NAMAZU_REFRESH_ROTATION: 'public' }).refreshRotation, 'public');
  assert.equal(loadConfig({ NAMAZU_REFRESH_ROTATION: 'all' }).refreshRotation, 'all');
});

test('NAMAZU_TRUST_PROXY is how many proxies are in front: true is one, false none', () => {
  assert.equal(loadConfig({}).trustProxy, 0);
  assert.equal(loadConfig({ NAMAZU_TRUST_PROXY: 'true' }).trustProxy, 1);
  assert.equal(loadConfig({ NAMAZU_TRUST_PROXY: '1' }).trustProxy, 1);
  assert.equal(loadConfig({ NAMAZU_TRUST_PROXY: '2' }).trustProxy, 2);
  assert.equal(loadConfig({ NAMAZU_TRUST_PROXY: 'off' }).trustProxy, 0);
  assert.throws(
    () => loadConfig({ NAMAZU_TRUST_PROXY: '17' }),
    /NAMAZU_TRUST_PROXY must be how many proxies/,
  );
  assert.throws(
    () => loadConfig({ NAMAZU_TRUST_PROXY: 'some' }),
    /NAMAZU_TRUST_PROXY must be how many proxies/,
  );
});

test('public URLs must be origins and are normalised', () => {
  assert.equal(
    loadConfig({ NAMAZU_AUTH_URL: 'https://auth.example.com/' }).authUrl,
    'https://auth.example.com',
  );
  assert.throws(() => loadConfig({ NAMAZU_AUTH_URL: 'https://auth.example.com/x' }), /NAMAZU_AUTH_URL/);
  assert.throws(
    () => loadConfig({ NAMAZU_WEBSOCKET_URL: 'http://x' }),
    /NAMAZU_WEBSOCKET_URL must be a ws: or wss: URL/,
  );
});

for (const [env, message] of [
  [{ NAMAZU_PORT: 'eighty' }, /NAMAZU_PORT must be an integer/],
  [{ NAMAZU_PORT: '70000' }, /NAMAZU_PORT must be between 0 and 65535/],
  [{ NAMAZU_BUS: 'kafka' }, /NAMAZU_BUS must be one of memory, postgres, redis/],
  [{ NAMAZU_DEMO: 'maybe' }, /NAMAZU_DEMO must be true or false/],
  [{ NAMAZU_DATABASE_URL: 'mysql://x' }, /NAMAZU_DATABASE_URL must be a postgres: or postgresql: URL/],
  [{ NAMAZU_PROT: '1' }, /unknown setting NAMAZU_PROT/],
  [{ NAMAZU_BUS: 'postgres' }, /NAMAZU_BUS=postgres needs NAMAZU_DATABASE_URL/],
  [{ NAMAZU_WORKERS: '2' }, /--workers above 1 needs NAMAZU_DATABASE_URL/],
  [{ NAMAZU_MAX_TELEGRAM_BYTES: '16MiB' }, /NAMAZU_MAX_TELEGRAM_BYTES must be an integer/],
  [{ NAMAZU_MAX_TELEGRAM_BYTES: '65535' }, /NAMAZU_MAX_TELEGRAM_BYTES must be between 65536 and 67108864/],
  [{ NAMAZU_MAX_TELEGRAM_BYTES: '67108865' }, /NAMAZU_MAX_TELEGRAM_BYTES must be between 65536 and 67108864/],
  [{ NAMAZU_INGEST_BODY_LIMIT: '4194304' }, /NAMAZU_INGEST_BODY_LIMIT is now NAMAZU_MAX_TELEGRAM_BYTES/],
  [{ NAMAZU_ANSWER_CACHE_BYTES: '64MiB' }, /NAMAZU_ANSWER_CACHE_BYTES must be an integer/],
  [{ NAMAZU_ANSWER_CACHE_BYTES: '-1' }, /NAMAZU_ANSWER_CACHE_BYTES must be an integer/],
  [
    { NAMAZU_ANSWER_CACHE_BYTES: '17179869185' },
    /NAMAZU_ANSWER_CACHE_BYTES must be between 0 and 17179869184/,
  ],
  [{ NAMAZU_REFRESH_ROTATION: 'on' }, /^NAMAZU_REFRESH_ROTATION must be one of off, public, all, got "on"$/],
  [{ NAMAZU_PREPARE_TIMEOUT_MS: '10s' }, /NAMAZU_PREPARE_TIMEOUT_MS must be an integer/],
  [{ NAMAZU_PREPARE_TIMEOUT_MS: '99' }, /NAMAZU_PREPARE_TIMEOUT_MS must be between 100 and 600000/],
] as const) {
  test(`invalid configuration is refused naming the setting: ${JSON.stringify(env)}`, () => {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
    );
  });
}

test('the telegram size limit: 16 MiB by default, anything from 64 KiB to 64 MiB', () => {
  assert.equal(loadConfig({}).maxTelegramBytes, 16 * 1024 * 1024);
  assert.equal(loadConfig({ NAMAZU_MAX_TELEGRAM_BYTES: '65536' }).maxTelegramBytes, 65536);
  assert.equal(loadConfig({ NAMAZU_MAX_TELEGRAM_BYTES: '67108864' }).maxTelegramBytes, 64 * 1024 * 1024);
});

test('the budget of kept answers: 64 MiB by default, 0 keeps none', () => {
  assert.equal(loadConfig({}).answerCacheBytes, 64 * 1024 * 1024);
  assert.equal(loadConfig({ NAMAZU_ANSWER_CACHE_BYTES: '0' }).answerCacheBytes, 0);
  assert.equal(loadConfig({ NAMAZU_ANSWER_CACHE_BYTES: '268435456' }).answerCacheBytes, 256 * 1024 * 1024);
});

test('the time budget of a preparation: 30 s by default, anything from 100 ms to 10 min', () => {
  assert.equal(loadConfig({}).prepareTimeoutMs, 30_000);
  assert.equal(loadConfig({ NAMAZU_PREPARE_TIMEOUT_MS: '100' }).prepareTimeoutMs, 100);
  assert.equal(loadConfig({ NAMAZU_PREPARE_TIMEOUT_MS: '600000' }).prepareTimeoutMs, 600_000);
});

test('an unknown flag is refused', () => {
  assert.throws(() => loadConfig({}, { '--prot': '1' }), /unknown option --prot/);
});

test('test-harness variables under the prefix are not settings', () => {
  assert.doesNotThrow(() => loadConfig({ NAMAZU_TEST_DATABASE_URL: 'x', NAMAZU_FIXTURES: '/f' }));
});

test('on PostgreSQL the bus defaults to LISTEN/NOTIFY; an explicit choice wins', () => {
  const pg = { NAMAZU_DATABASE_URL: 'postgres://u@127.0.0.1/db' };
  assert.equal(loadConfig(pg).bus, 'postgres');
  assert.equal(loadConfig({ ...pg, NAMAZU_BUS: 'memory' }).bus, 'memory');
  assert.equal(loadConfig(pg, { '--bus': 'memory' }).bus, 'memory');
  assert.equal(loadConfig({}).bus, 'memory', 'the embedded database belongs to one process');
  assert.throws(() => loadConfig({ ...pg, NAMAZU_BUS: 'memory', NAMAZU_WORKERS: '2' }), /shared bus/);
});

test('a PostgreSQL installation gets no demo setup unless asked for', () => {
  const pg = { NAMAZU_DATABASE_URL: 'postgres://u@127.0.0.1/db' };
  assert.equal(loadConfig(pg).demo, false);
  assert.equal(loadConfig({ ...pg, NAMAZU_DEMO: '1' }).demo, true);
  assert.equal(loadConfig({}).demo, true);
});

test('sign-up is open with the demo setup and by invitation otherwise, unless NAMAZU_SIGNUP says', () => {
  assert.equal(loadConfig({}).signup, 'open');
  assert.equal(loadConfig({ NAMAZU_DEMO: '0' }).signup, 'invitation');
  assert.equal(loadConfig({ NAMAZU_DATABASE_URL: 'postgres://db.example/namazu' }).signup, 'invitation');
  assert.equal(loadConfig({ NAMAZU_DEMO: '0', NAMAZU_SIGNUP: 'open' }).signup, 'open');
  assert.equal(loadConfig({ NAMAZU_SIGNUP: 'invitation' }).signup, 'invitation');
  assert.throws(() => loadConfig({ NAMAZU_SIGNUP: 'anyone' }), /NAMAZU_SIGNUP/);
});
