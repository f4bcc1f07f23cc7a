import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/open.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';

test('migrations are numbered, applied once and recorded', async () => {
  const t = await createTestDatabase();
  const db = await openDb({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, poolSize: 2 });
  try {
    const all = listMigrations().map((m) => m.name);
    assert.ok(all.length >= 2);
    assert.deepEqual(all, [...all].sort());
    // The test database comes migrated: a second run applies nothing.
    assert.deepEqual(await migrate(db), []);
    const recorded = (
      await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
    ).map((r) => r.name);
    assert.deepEqual(recorded, all);
  } finally {
    await db.close();
    await t.drop();
  }
});

test(
  'processes migrating one PostgreSQL database at once apply each migration exactly once',
  {
    skip: testDatabaseUrl ? false : 'needs NAMAZU_TEST_DATABASE_URL (a PostgreSQL server)',
  },
  async () => {
    const pg = (await import('pg')).default;
    const url = new URL(testDatabaseUrl!);
    const name = `namazu_migrate_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl! });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    const dbs = await Promise.all(
      [1, 2, 3, 4].map(() => openDb({ databaseUrl: url.toString(), dataDir: '/nonexistent', poolSize: 2 })),
    );
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = results.flat().sort();
      assert.deepEqual(
        applied,
        listMigrations().map((m) => m.name),
      );
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  },
);
