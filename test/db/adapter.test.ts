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
