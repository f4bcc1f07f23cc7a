/**
 * `namazu stations import` (docs/parameter.md "Keeping the lists current"): a newer JMA list replaces
 * the served one in one step, with what changed marked; a bad file changes nothing and says why.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stationsCommand } from '../../src/cli/stations.ts';
import type { CommandIo } from '../../src/cli/database.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { auth, namazuOn } from '../support/processes.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { getJson } from '../support/data-api.ts';
import { waitFor } from '../support/wait.ts';
import { publishedStations, stationsDir } from './published.ts';

const dir = mkdtempSync(join(tmpdir(), 'namazu-stations-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** JMA's list with one station gone, one renamed and one added, as a newer list would be. */
function newerList() {
  const stations = publishedStations();
  const [gone, renamed] = [stations[0]!, stations[1]!];
  const added = { ...stations[2]!, code: '0123599', name: '石狩市新設', furigana: 'いしかりししんせつ' };
  return {
    gone,
    renamed,
    added,
    json: JSON.stringify([{ ...renamed, name: `${renamed.name}２` }, ...stations.slice(2), added]),
  };
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('namazu stations import', () => {
  let server: TestServer;
  let key: string;
  const output: string[] = [];
  /** The command as the admin channel runs it: inside the server, on its database and bus. */
  const io: CommandIo = {
    cwd: dir,
    withDatabase: (_values, fn) =>
      fn({
        config: server.ctx.config,
        db: server.ctx.db,
        pepper: server.ctx.pepper,
        bus: async () => server.ctx.bus,
      }),
    stdout: (text) => output.push(text),
    stderr: (text) => output.push(text),
  };
  const list = (kind: string) => getJson(server, `/v2/parameter/${kind}/station`, { headers: auth(key) });

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['parameter.earthquake', 'parameter.tsunami']);
  });
  after(() => server.close());

  it('replaces the earthquake list, marking new, changed and abolished stations', async () => {
    const before = await list('earthquake');
    const { gone, renamed, added, json } = newerList();
    output.length = 0;
    const code = await runCommand(
      'stations',
      stationsCommand,
      ['import', '--change-time', '2026-07-23T03:00:00Z', file('newer.json', json)],
      io,
    );
    assert.equal(code, 0, output.join(''));
    const printed = JSON.parse(output.join('')) as { counts: Record<string, number>; version: string };
    const total = publishedStations().length;
    assert.deepEqual(printed.counts, { 現: total - 2, 変更: 1, 新規: 1, 廃止: 1 });

    // Every node hears of the import on the bus and serves the new list.
    await waitFor(async () => (await list('earthquake')).body.version === printed.version, {
      message: 'the new list to be served',
    });
    const after = await list('earthquake');
    assert.equal(after.body.changeTime, '2026-07-23T03:00:00.000Z');
    assert.notEqual(after.body.version, before.body.version);
    const status = (c: string) => after.body.items.find((i: { code: string }) => i.code === c)?.status;
    assert.equal(status(gone.code), '廃止', 'an abolished station stays listed as 廃止');
    assert.equal(status(renamed.code), '変更');
    assert.equal(status(added.code), '新規');
    assert.equal(after.body.items.length, total + 1);
  });

  it('refuses a bad file, naming what is wrong, and changes nothing', async () => {
    const served = (await list('earthquake')).body.version;
    const stations = publishedStations();
    const cases: [string, string, RegExp][] = [
      ['truncated.json', JSON.stringify(stations).slice(0, 5000), /not JSON/],
      ['bad-position.json', JSON.stringify([{ ...stations[0], lat: '91.5' }]), /row 1: .*latitude/],
      [
        'duplicate.json',
        JSON.stringify([stations[0], stations[1], stations[0]]),
        /row 3: station code \d{7} appears twice/,
      ],
      ['empty.json', '[]', /non-empty/],
      [
        'code-table.csv',
        readFileSync(
          join(stationsDir, 'AreaForecastLocalE_AreaInformationCity_PointSeismicIntensity.csv'),
          'utf8',
        ),
        /no positions/,
      ],
      ['tsunami-bad.csv', '10050,釧路沖,くしろおき,,\n', /row 1: expected 6 comma-separated columns/],
    ];
    for (const [name, text, message] of cases) {
      output.length = 0;
      const code = await runCommand('stations', stationsCommand, ['import', file(name, text)], io);
      assert.equal(code, 1, name);
      assert.match(output.join(''), message, name);
      assert.equal(output.join('').split('\n').filter(Boolean).length, 1, `${name}: one line`);
    }
    assert.equal((await list('earthquake')).body.version, served);
  });

  it('replaces the tsunami list from JMA’s code table', async () => {
    const rows = readFileSync(join(stationsDir, 'PointTsunami.csv'), 'utf8').trimEnd().split('\n');
    const code = await runCommand(
      'stations',
      stationsCommand,
      ['import', file('tsunami.csv', `${rows.slice(1).join('\n')}\n99999,新観測点,しんかんそくてん,,,\n`)],
      io,
    );
    assert.equal(code, 0);
    await waitFor(
      async () => (await list('tsunami')).body.items.some((i: { code: string }) => i.code === '99999'),
      { message: 'the new tsunami list' },
    );
    const items = (await list('tsunami')).body.items as { code: string }[];
    assert.equal(items.length, rows.length, 'one point gone, one added');
    assert.ok(!items.some((i) => i.code === rows[0]!.split(',')[0]));
  });
});

describe('namazu stations import (the executable)', () => {
  it('imports into a database that a server then serves, and exits 1 with one line on a bad file', async () => {
    const database = await createTestDatabase();
    const where = database.databaseUrl ? ['--database-url', database.databaseUrl] : [];
    try {
      const bad = namazuOn(
        database.dataDir,
        'stations',
        'import',
        ...where,
        file('bad.json', '{"not":"a list"}'),
      );
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /^namazu stations: expected a non-empty JSON array of stations\n$/);
      const good = namazuOn(
        database.dataDir,
        'stations',
        'import',
        ...where,
        file('good.json', newerList().json),
      );
      assert.equal(good.status, 0, good.stderr);
      const { version } = JSON.parse(good.stdout) as { version: string };

      const server = await startTestServer({ database, listen: false });
      try {
        const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
        const key = await server.createApiKey(account.id, ['parameter.earthquake']);
        const r = await getJson(server, '/v2/parameter/earthquake/station', {
          headers: auth(key),
        });
        assert.equal(r.body.version, version);
      } finally {
        await server.close();
      }
    } finally {
      await database.drop();
    }
  });
});
