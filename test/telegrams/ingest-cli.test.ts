import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fixture, fixtureIndex, jmaXmlRoot } from '../support/fixtures.ts';

const run = promisify(execFile);
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'namazu.js');

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
    const { stdout } = await run(process.execPath, [bin, 'ingest', ...target, ...args], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as {
      ingested: number;
      duplicates: number;
      rejected: { path: string; reason: string }[];
    };
  };

  it('ingests a directory; again, it stores nothing new', async () => {
    const total = fixtureIndex().length;
    const first = await ingest(jmaXmlRoot);
    assert.deepEqual([first.ingested, first.duplicates, first.rejected], [total, 0, []]);

    const second = await ingest(jmaXmlRoot);
    assert.deepEqual([second.ingested, second.duplicates, second.rejected], [0, total, []]);
  });

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
