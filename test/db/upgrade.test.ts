/**
 * Upgrading (docs/operations.md, "Upgrading"): a database made by an earlier release opens under
 * today's code. test/fixtures/upgrade-cdbd582/ holds the migrations as they were at commit cdbd582
 * and the rows that release stored (data.sql: an account, a contract, an API key, an OAuth client,
 * telegrams with their conversions and earthquake projections). Today's migrations run forward on
 * top; every row reads back the same, and the lists, bodies and credentials work as they did.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pg from 'pg';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/open.ts';
import type { Queryable } from '../../src/db/types.ts';
import { TOKEN_PATH } from '../../src/oauth/token.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { testDatabaseUrl, type TestDatabase } from '../support/database.ts';
import { startTestServer } from '../support/server.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/upgrade-cdbd582/', import.meta.url));
const credentials = JSON.parse(readFileSync(join(FIXTURE, 'credentials.json'), 'utf8')) as {
  apiKey: string;
  clientId: string;
  clientSecret: string;
};

/** An empty database (not migrated) on the engine under test. */
async function emptyDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'namazu-upgrade-'));
  if (!testDatabaseUrl)
    return {
      databaseUrl: null,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  const name = `namazu_upgrade_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: testDatabaseUrl! });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

type Snapshot = Record<string, { columns: string[]; rows: string[] }>;

/** Every row of every table (or of the tables and columns of `like`), as JSON text in a stable order. */
async function snapshot(q: Queryable, like?: Snapshot): Promise<Snapshot> {
  const tables =
    like ??
    Object.fromEntries(
      await Promise.all(
        (
          await q.query<{ name: string }>(
            `SELECT table_name AS name FROM information_schema.tables
              WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`,
          )
        ).map(async ({ name }) => {
          const cols = await q.query<{ c: string }>(
            `SELECT column_name AS c FROM information_schema.columns
              WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
            [name],
          );
          return [name, { columns: cols.map((r) => r.c), rows: [] as string[] }] as const;
        }),
      ),
    );
  const out: Snapshot = {};
  for (const [name, { columns }] of Object.entries(tables).sort()) {
    const list = columns.map((c) => `"${c}"`).join(', ');
    const rows = await q.query<{ r: string }>(
      `SELECT row_to_json(x)::text AS r FROM (SELECT ${list} FROM "${name}") x ORDER BY 1`,
    );
    out[name] = { columns, rows: rows.map((r) => r.r) };
  }
  return out;
}

test('a database made by the migrations of an earlier commit opens under today’s code with every row, list and body the same', async () => {
  const database = await emptyDatabase();
  let server: Awaited<ReturnType<typeof startTestServer>> | null = null;
  try {
    const old = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
    let before: Snapshot;
    try {
      const oldMigrations = listMigrations(join(FIXTURE, 'migrations/'));
      assert.ok(oldMigrations.length < listMigrations().length, 'today has migrations the fixture has not');
      await migrate(old, oldMigrations);
      await old.exec(readFileSync(join(FIXTURE, 'data.sql'), 'utf8'));
      before = await snapshot(old);
    } finally {
      await old.close();
    }
    assert.ok(before.telegrams!.rows.length >= 3 && before.api_keys!.rows.length === 1);

    if (database.databaseUrl) {
      // Several nodes of the new release starting at once apply each new migration exactly once.
      const nodes = await Promise.all(
        [1, 2, 3].map(() =>
          openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 }),
        ),
      );
      try {
        const applied = (await Promise.all(nodes.map((n) => migrate(n)))).flat().sort();
        const known = new Set(listMigrations(join(FIXTURE, 'migrations/')).map((m) => m.name));
        assert.deepEqual(
          applied,
          listMigrations()
            .map((m) => m.name)
            .filter((n) => !known.has(n)),
        );
      } finally {
        await Promise.all(nodes.map((n) => n.close()));
      }
    }
    // Today's server migrates forward on start (on PostgreSQL, finds it done).
    server = await startTestServer({ database });
    const { db } = server.ctx;
    assert.deepEqual(
      await snapshot(db, before),
      before,
      'every row of the earlier release reads back the same',
    );
    const applied = (
      await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
    ).map((r) => r.name);
    assert.deepEqual(
      applied,
      listMigrations().map((m) => m.name),
    );

    // Lists and bodies, to the API key and to an OAuth token of the client the earlier release made.
    const files = readdirSync(join(FIXTURE, 'telegrams')).sort();
    const byKey = { authorization: `Basic ${Buffer.from(`${credentials.apiKey}:`).toString('base64')}` };
    const tokenRes = await fetch(`${server.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=telegram.list+telegram.data+telegram.get.earthquake',
    });
    assert.equal(tokenRes.status, 200);
    const byToken = {
      authorization: `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`,
    };
    const stored = await db.query<{ serial: number; id: string }>(
      `SELECT serial, id FROM telegrams WHERE format = 'xml' ORDER BY serial DESC`,
    );
    for (const headers of [byKey, byToken]) {
      const res = await fetch(`${server.url}/v2/telegram?type=VXSE51`, { headers });
      assert.equal(res.status, 200);
      const items = ((await res.json()) as { items: { serial: number; id: string; url: string }[] }).items;
      assert.deepEqual(
        items.map((i) => ({ serial: i.serial, id: i.id })),
        stored,
      );
      // Newest first: the files in reverse order of ingest.
      for (const [n, item] of items.entries()) {
        const body = await fetch(item.url, { headers });
        assert.equal(body.status, 200);
        assert.equal(
          await body.text(),
          readFileSync(join(FIXTURE, 'telegrams', files[files.length - 1 - n]!), 'utf8'),
        );
      }
    }

    // Serials continue after the earlier release's.
    const raw = Buffer.from(
      readFileSync(join(FIXTURE, 'telegrams', files[0]!), 'utf8').replace('20260105100100', '20260401000000'),
    );
    const r = await ingestTelegram(server.ctx, raw, { fileName: 'next.xml', receivedTime: Date.now() });
    assert.ok(r.ok);
    const maxBefore = Math.max(
      ...before.telegrams!.rows.map((row) => (JSON.parse(row) as { serial: number }).serial),
    );
    assert.ok(r.stored.serial > maxBefore);
  } finally {
    await server?.close();
    await database.drop();
  }
});
