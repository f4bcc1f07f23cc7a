import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { openDb } from '../../src/db/open.ts';
import {
  allRestXmlFixtures,
  allXmlFixtures,
  fixture,
  fixtureIndex,
  jmaXmlRestRoot,
  jmaXmlRoot,
  restFixtureIndex,
} from '../support/fixtures.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { engineFree } from '../support/engine.ts';

const run = promisify(execFile);

describe('namazu ingest', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  const ingest = async (...args: string[]) => {
    const target = database.databaseUrl
      ? ['--database-url', database.databaseUrl]
      : ['--data-dir', database.dataDir];
    const { stdout } = await run(
      process.execPath,
      [...NODE_FLAGS, NAMAZU_BIN, 'ingest', ...target, ...args],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return JSON.parse(stdout) as {
      ingested: number;
      duplicates: number;
      rejected: { path: string; reason: string }[];
    };
  };

  it(
    'ingests directories: every file of the four folders, each as its index says; again, nothing new',
    engineFree,
    async () => {
      // jma-xml/ (three folders) and jma-xml-rest/ (the rest of the official set, up to 4 MB a file).
      const index = [...fixtureIndex(), ...restFixtureIndex()];
      const onDisk = [...allXmlFixtures(), ...allRestXmlFixtures()];
      assert.deepEqual(index.map((e) => e.path).sort(), onDisk.sort(), 'the indexes cover every file');
      const first = await ingest(jmaXmlRoot, jmaXmlRestRoot);
      assert.deepEqual([first.ingested, first.duplicates, first.rejected], [onDisk.length, 0, []]);
      const db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      try {
        const rows = await db.query<{ type: string; classification: string; n: number }>(
          `SELECT type, classification, count(*)::int AS n FROM telegrams WHERE format = 'xml'
          GROUP BY type, classification ORDER BY type, classification`,
        );
        const expected = new Map<string, number>();
        for (const e of index)
          expected.set(
            `${e.type} ${e.classification}`,
            (expected.get(`${e.type} ${e.classification}`) ?? 0) + 1,
          );
        assert.deepEqual(
          new Map(rows.map((r) => [`${r.type} ${r.classification}`, r.n])),
          expected,
          'stored with the type and classification of the index',
        );
      } finally {
        await db.close();
      }

      const second = await ingest(jmaXmlRoot);
      const total = fixtureIndex().length;
      assert.deepEqual([second.ingested, second.duplicates, second.rejected], [0, total, []]);
    },
  );

  it('reports unreadable input per file and bad usage with status 2', async () => {
    const r = await ingest(
      join(jmaXmlRoot, 'README.md'),
      fixture('official', '32-35_01_03_100514_VXSE53.xml'),
    );
    assert.equal(r.rejected.length, 1);
    assert.match(r.rejected[0]!.reason, /needs a JMA header or a type/);
    await assert.rejects(ingest(), (err: { code: number }) => err.code === 2);
    await assert.rejects(ingest('/nonexistent/path'), (err: { code: number }) => err.code === 2);
  });
});
