import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { createTestDatabase } from '../support/database.ts';

async function withDb(fn: (db: Db) => Promise<void>): Promise<void> {
  const t = await createTestDatabase();
  const db = await openDb({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, poolSize: 4 });
  try {
    await fn(db);
  } finally {
    await db.close();
    await t.drop();
  }
}

test('types come back the same on every engine', () =>
  withDb(async (db) => {
    const [row] = await db.query<Record<string, unknown>>(
      `SELECT 9007199254740991::int8 AS big, 42::int4 AS small, 1.5::numeric AS num,
              '2026-01-02T03:04:05.678Z'::timestamptz AS at, '{"a":[1,"x"]}'::jsonb AS doc,
              '\\x00ff'::bytea AS bytes, ARRAY['a','b']::text[] AS list, true AS flag, NULL::text AS nothing`,
    );
    assert.equal(row!.big, 9007199254740991);
    assert.equal(row!.small, 42);
    assert.equal(row!.num, '1.5');
    assert.ok(row!.at instanceof Date);
    assert.equal((row!.at as Date).toISOString(), '2026-01-02T03:04:05.678Z');
    assert.deepEqual(row!.doc, { a: [1, 'x'] });
    assert.ok(Buffer.isBuffer(row!.bytes));
    assert.deepEqual([...(row!.bytes as Buffer)], [0, 255]);
    assert.deepEqual(row!.list, ['a', 'b']);
    assert.equal(row!.flag, true);
    assert.equal(row!.nothing, null);
  }));

test('parameters of every kind round-trip', () =>
  withDb(async (db) => {
    const at = new Date('2026-05-06T07:08:09.010Z');
    const [row] = await db.query<Record<string, unknown>>(
      'SELECT $1::int8 AS n, $2::text[] AS list, $3::bytea AS bytes, $4::jsonb AS doc, $5::timestamptz AS at',
      [12345678901, ['x', 'y'], Buffer.from([1, 2, 3]), JSON.stringify({ k: 'v' }), at],
    );
    assert.equal(row!.n, 12345678901);
    assert.deepEqual(row!.list, ['x', 'y']);
    assert.deepEqual([...(row!.bytes as Buffer)], [1, 2, 3]);
    assert.deepEqual(row!.doc, { k: 'v' });
    assert.equal((row!.at as Date).getTime(), at.getTime());
  }));

test('lists of numbers and booleans arrive as sent, an empty one and one holding a null too', () =>
  withDb(async (db) => {
    const [row] = await db.query<Record<string, unknown>>(
      `SELECT array_to_string($1::int8[], ',') AS ints, array_to_string($2::float8[], ',') AS floats,
              array_to_string($3::bool[], ',') AS flags, cardinality($4::int8[]) AS empty,
              array_to_string($5::int4[], ',', 'null') AS with_null, array_to_string($6::text[], '|') AS texts,
              7 = ANY($7::int8[]) AS found`,
      [
        [9007199254740991, -3, 0],
        [1.5, -0.25, 1e21],
        [true, false, true],
        [],
        [1, null, 3],
        [1, 2.5],
        [5, 6, 7],
      ],
    );
    assert.equal(row!.ints, '9007199254740991,-3,0');
    assert.equal(row!.floats, '1.5,-0.25,1e+21');
    assert.equal(row!.flags, 't,f,t');
    assert.equal(row!.empty, 0);
    assert.equal(row!.with_null, '1,null,3');
    assert.equal(row!.texts, '1|2.5');
    assert.equal(row!.found, true);
  }));

test('values of every size and encoding arrive as sent, also after a larger one, and a view as its own bytes', () =>
  withDb(async (db) => {
    const echo = 'SELECT $1::text AS text, $2::bytea AS bytes, octet_length($2::bytea)::int AS length';
    const within = Buffer.from('0123456789abcdef'.repeat(64));
    const cases: [string | null, Buffer | null][] = [
      ['', Buffer.alloc(0)],
      [null, null],
      ['緊急地震速報（警報）', Buffer.from([0, 1, 254, 255])],
      // Larger than the buffer the embedded engine keeps for its messages (1 MiB), then smaller.
      ['x'.repeat(300_000), Buffer.alloc(2 * 1024 * 1024 + 3, 7)],
      ['short', Buffer.from('after a large one')],
      ['震度５弱', within.subarray(100, 164)],
    ];
    for (const [text, bytes] of cases) {
      const [row] = await db.query<{ text: string | null; bytes: Buffer | null; length: number | null }>(
        echo,
        [text, bytes],
      );
      assert.equal(row!.text, text);
      assert.equal(row!.length, bytes?.length ?? null);
      assert.ok(
        bytes === null ? row!.bytes === null : bytes.equals(row!.bytes!),
        `bytes of ${text?.slice(0, 8)}`,
      );
    }
  }));

test('a transaction commits when its function resolves and rolls back when it throws', () =>
  withDb(async (db) => {
    await db.exec('CREATE TABLE t (v int); CREATE TABLE u (v int);');
    await db.tx(async (q) => {
      await q.query('INSERT INTO t VALUES (1)');
    });
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('INSERT INTO t VALUES (2)');
        throw new Error('boom');
      }),
      /boom/,
    );
    const rows = await db.query<{ v: number }>('SELECT v FROM t ORDER BY v');
    assert.deepEqual(
      rows.map((r) => r.v),
      [1],
    );
  }));

test('a statement run again answers as the first time: new values, nulls, errors, and after an error', () =>
  withDb(async (db) => {
    await db.exec('CREATE TABLE k (id int PRIMARY KEY, name text, tags text[])');
    const insert = 'INSERT INTO k (id, name, tags) VALUES ($1, $2, $3) RETURNING id, name, tags';
    for (let id = 1; id <= 8; id++) {
      const name = id % 3 === 0 ? null : `n${id}`;
      const rows = await db.query(insert, [id, name, [`t${id}`, 'x']]);
      assert.deepEqual(rows, [{ id, name, tags: [`t${id}`, 'x'] }]);
    }
    // An error in a statement already run: the key exists, a value does not parse.
    await assert.rejects(db.query(insert, [1, 'again', []]), { code: '23505', constraint: 'k_pkey' });
    await assert.rejects(db.query('SELECT $1::int AS v', ['x']), { code: '22P02' });
    assert.deepEqual(await db.query('SELECT $1::int AS v', ['7']), [{ v: 7 }]);
    assert.deepEqual(await db.query(insert, [9, 'n9', null]), [{ id: 9, name: 'n9', tags: null }]);
    // A text that does not parse fails each time, and leaves the connection usable.
    for (let i = 0; i < 2; i++) await assert.rejects(db.query('SELEC $1', [1]), { code: '42601' });
    const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM k WHERE id > $1', [0]);
    assert.equal(count!.n, 9);
  }));

test('a statement outside a transaction never runs inside one that is open', () =>
  withDb(async (db) => {
    await db.exec('CREATE TABLE v (n int)');
    const add = 'INSERT INTO v (n) VALUES ($1)';
    await db.query(add, [0]);
    let outside: Promise<unknown> | undefined;
    await assert.rejects(
      db.tx(async (q) => {
        await q.query(add, [1]);
        // Sent while the transaction is open: it must not become part of it.
        outside = db.query(add, [2]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await q.query(add, [3]);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await outside;
    const rows = await db.query<{ n: number }>('SELECT n FROM v WHERE n >= $1 ORDER BY n', [0]);
    assert.deepEqual(
      rows.map((r) => r.n),
      [0, 2],
    );
  }));
