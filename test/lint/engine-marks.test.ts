// The suite runs whole on PGlite and again on PostgreSQL only for the files listed in
// test/engine-dependent.json (`npm test -- --engine-dependent`, .ci/run). A file must be listed when
// what it tests can differ between the engines or buses, which these signs show:
//   - it sits under test/db/, test/bus/, test/multinode/ or test/retention/;
//   - it names the test database or bus it runs on (NAMAZU_TEST_DATABASE_URL or _REDIS_URL,
//     testDatabaseUrl, createTestDatabase, redisUrl, a databaseUrl);
//   - it imports the database or bus adapters (src/db/, src/bus/);
//   - it runs SQL of its own (a query or exec whose text starts with a statement).
// The list holds more than the signs find: the stores behind an API (telegram lists and paging,
// tokens, sessions, webhooks, accounts), where a difference of the engine would show through
// HTTP. A file nobody can place stays on both engines: list it. A file that shows a sign but tests
// nothing the engine changes (SQL that only sets up rows for a browser test) may run once when
// `onceDespiteSigns` names it with the reason. Within a listed file, a test that the engine does not
// change (a browser's parsing, an HTTP shape, a refusal before any store) may be marked `engineFree`
// (test/support/engine.ts): the PostgreSQL pass skips it. The mark is for listed files only; a file
// whose every test would carry it comes off the list instead.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';

const LIST = 'test/engine-dependent.json';

const SIGNS: { sign: string; matches: (path: string, text: string) => boolean }[] = [
  { sign: 'folder', matches: (path) => /^test\/(db|bus|multinode|retention)\//.test(path) },
  {
    sign: 'test database or bus',
    matches: (_, text) =>
      /NAMAZU_TEST_(DATABASE|REDIS)_URL|\btestDatabaseUrl\b|\bcreateTestDatabase\b|\bredisUrl\b|\bdatabaseUrl\b/.test(
        text,
      ),
  },
  { sign: 'adapter import', matches: (_, text) => /from '[^']*\/src\/(db|bus)\//.test(text) },
  {
    sign: 'own SQL',
    matches: (_, text) =>
      /\.(query|exec)\(\s*[`'"]\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|WITH|TRUNCATE|BEGIN|LOCK)\b/i.test(
        text,
      ),
  },
];

function signsOf(path: string, text: string): string[] {
  return SIGNS.filter((s) => s.matches(path, text)).map((s) => s.sign);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = `${dir}/${name}`;
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [path] : [];
    });
}

const { files: listed, onceDespiteSigns: once } = JSON.parse(readFileSync(LIST, 'utf8')) as {
  files: string[];
  onceDespiteSigns: Record<string, string>;
};

test('every test file that shows a sign of depending on the engine or the bus is listed', () => {
  const unlisted = testFiles('test')
    .filter((path) => path !== 'test/lint/engine-marks.test.ts') // its planted texts show every sign
    .map((path) => ({ path, signs: signsOf(path, readFileSync(path, 'utf8')) }))
    .filter(({ path, signs }) => signs.length > 0 && !listed.includes(path) && !(path in once))
    .map(({ path, signs }) => `${path} (${signs.join(', ')})`);
  assert.deepEqual(unlisted, [], `add to ${LIST}`);
});

test('the list names existing test files, once each, in order', () => {
  assert.deepEqual(
    listed.filter((path) => !existsSync(path) || !path.endsWith('.test.ts')),
    [],
    `${LIST} lists files that are not test files (moved or removed?)`,
  );
  assert.deepEqual(listed, [...new Set(listed)].sort());
});

test('tests are marked engine-free only in listed files', () => {
  const misplaced = testFiles('test')
    .filter((path) => path !== 'test/lint/engine-marks.test.ts' && !listed.includes(path))
    .filter((path) => /\bengineFree\b/.test(readFileSync(path, 'utf8')));
  assert.deepEqual(misplaced, [], 'these files run once already: drop the mark, or list the file');
});

test('a file run once despite its signs exists, shows a sign, is not also listed, and says why', () => {
  for (const [path, reason] of Object.entries(once)) {
    assert.ok(existsSync(path), `${path} does not exist`);
    assert.notDeepEqual(signsOf(path, readFileSync(path, 'utf8')), [], `${path} shows no sign: remove it`);
    assert.ok(!listed.includes(path), `${path} is also in files`);
    assert.ok(reason.length >= 40, `${path}: say why it may run once`);
  }
});

test('the signs find what they describe and pass over engine-free tests', () => {
  const planted = (text: string) => signsOf('test/api/planted.test.ts', text);
  assert.deepEqual(planted("import { openPostgres } from '../../src/db/postgres.ts';"), ['adapter import']);
  assert.deepEqual(planted("import { RedisBus } from '../../src/bus/redis.ts';"), ['adapter import']);
  assert.deepEqual(planted('const url = process.env.NAMAZU_TEST_REDIS_URL;'), ['test database or bus']);
  assert.deepEqual(planted('await db.query(`SELECT count(*) FROM telegrams`);'), ['own SQL']);
  assert.deepEqual(signsOf('test/bus/planted.test.ts', ''), ['folder']);
  assert.deepEqual(planted("import { convertCoordinate } from '../../src/conversion/coordinate.ts';"), []);
  assert.deepEqual(planted("import { convert } from '../../src/conversion/index.ts'; q.query('x')"), []);
});
