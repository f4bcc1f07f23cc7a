import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fixture, fixtureIndex, jmaXmlRoot } from './fixtures.ts';

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
    assert.equal(first.ingested + first.rejected.length, total);
    assert.equal(first.duplicates, 0);
    // Only telegrams from offices without a confirmed code wait for an author from their transport.
    for (const r of first.rejected) assert.match(r.reason, /has no known office code/, r.path);
    assert.ok(first.rejected.length < 30);

    const second = await ingest(jmaXmlRoot);
    assert.deepEqual([second.ingested, second.duplicates], [0, first.ingested]);
    assert.deepEqual(second.rejected, first.rejected);

    const withAuthor = await ingest('--author', 'JPXX', ...first.rejected.map((r) => r.path));
    assert.deepEqual(
      [withAuthor.ingested, withAuthor.duplicates, withAuthor.rejected],
      [first.rejected.length, 0, []],
    );
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
