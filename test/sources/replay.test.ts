/**
 * namazu replay (docs/sources.md "Replay"): a fixture directory replayed at --speed 60
 * keeps its order and relative timing; the telegrams are new (new ids), stamped to now, and with
 * --as-test they are head.test and out of the default lists.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CommandIo } from '../../src/cli/database.ts';
import { replayCommand } from '../../src/cli/replay.ts';
import { prepareTelegram } from '../../src/telegrams/prepare.ts';
import { getJson } from '../support/data-api.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { readFileSync } from 'node:fs';

/** Official 2010-01-25 chain: Head/ReportDateTime 16:16, 16:18, 16:18, 16:19, 16:25 (JST). */
const CHAIN = [
  '32-35_04_01_100831_VXSE51.xml',
  '32-35_04_02_100831_VXSE51.xml',
  '32-35_04_03_240613_VXSE52.xml',
  '32-35_04_04_240613_VXSE53.xml',
  '32-35_04_06_240613_VXSE53.xml',
];
const ISSUED_MIN = [16, 18, 18, 19, 25];

/**
 * A command's I/O on the test server's database, run in the directory `cwd`: the summary (the one
 * JSON line) collected in `out`, the progress lines (one per telegram) dropped.
 */
function commandIo(server: TestServer, cwd: string, out: string[], signal?: AbortSignal): CommandIo {
  return {
    cwd,
    withDatabase: (_values, fn) =>
      fn({
        config: server.ctx.config,
        db: server.ctx.db,
        pepper: server.ctx.pepper,
        bus: async () => server.ctx.bus,
      }),
    stdout: (text) => out.push(text),
    stderr: () => {},
    ...(signal ? { signal } : {}),
  };
}

describe('namazu replay', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);

  const io = (out: string[]) => commandIo(server, dir, out);

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['telegram.list']);
    // The directory lists the fixtures in reverse name order's links: replay orders by report time.
    dir = mkdtempSync(join(tmpdir(), 'namazu-replay-'));
    CHAIN.forEach((name, i) =>
      symlinkSync(join(jmaXmlRoot, 'jma-official-samples', name), join(dir, `${9 - i}-${name}`)),
    );
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--speed 60 --real-time --as-test: original order, relative timing within 5%, new test telegrams stamped now', async () => {
    const out: string[] = [];
    const started = Date.now();
    await replayCommand(['--speed', '60', '--real-time', '--as-test', '.'], io(out));
    const summary = JSON.parse(out.join(''));
    assert.deepEqual(summary, { ingested: CHAIN.length, duplicates: 0, skipped: [], rejected: [] });

    assert.deepEqual(
      (await get('/v2/telegram')).body.items,
      [],
      'test telegrams are out of the default list',
    );
    const items = (await get('/v2/telegram?test=only&limit=100&formatMode=raw')).body.items as {
      id: string;
      serial: number;
      receivedTime: string;
      head: { test: boolean; type: string; time: string };
    }[];
    const xml = items.filter((t) => t.head.type.startsWith('VXSE')).sort((a, b) => a.serial - b.serial);
    assert.equal(xml.length, CHAIN.length);
    assert.deepEqual(
      xml.map((t) => t.head.type),
      CHAIN.map((n) => n.slice(-10, -4)),
    );
    assert.ok(xml.every((t) => t.head.test));

    const originals = new Set(
      CHAIN.map((n) => {
        const p = prepareTelegram(readFileSync(join(jmaXmlRoot, 'jma-official-samples', n)), {
          receivedTime: 0,
        });
        return p.ok ? p.telegram.id : '';
      }),
    );
    assert.ok(
      xml.every((t) => !originals.has(t.id)),
      'new bytes, new ids',
    );

    // Each telegram's time after the first is the original one divided by 60, within 5% of the
    // replay's span (9 s): timers on a busy event loop fire a little late, never early.
    const received = xml.map((t) => Date.parse(t.receivedTime));
    const span = ((ISSUED_MIN.at(-1)! - ISSUED_MIN[0]!) * 60_000) / 60;
    for (let i = 1; i < CHAIN.length; i++) {
      const expected = ((ISSUED_MIN[i]! - ISSUED_MIN[0]!) * 60_000) / 60;
      const actual = received[i]! - received[0]!;
      assert.ok(actual >= expected - 5 && actual - expected <= 0.05 * span, `${i}: ${actual} vs ${expected}`);
    }
    // head.time comes from the re-stamped ReportDateTime: the minute of the replay, not 2010.
    for (const t of xml) assert.ok(Math.abs(Date.parse(t.head.time) - started) < 11 * 60_000, t.head.time);
  });

  it('reads each file when it sends it, not all at the start: one removed meanwhile is rejected, the others sent', async () => {
    const own = mkdtempSync(join(tmpdir(), 'namazu-replay-reread-'));
    try {
      const [first, second] = [CHAIN[0]!, CHAIN[1]!].map((name, i) => {
        const link = join(own, `${i}-${name}`);
        symlinkSync(join(jmaXmlRoot, 'jma-official-samples', name), link);
        return link;
      });
      const out: string[] = [];
      const progress: string[] = [];
      // The two are two minutes apart: two seconds at --speed 60, during which the second goes.
      await replayCommand(['--speed', '60', '--real-time', '--as-test', own], {
        ...io(out),
        stderr: (line) => {
          progress.push(line);
          if (line.includes(` 1/2 `)) rmSync(second!);
        },
      });
      assert.ok(progress.some((l) => l.includes(first!)));
      assert.deepEqual(JSON.parse(out.join('')), {
        ingested: 1,
        duplicates: 0,
        skipped: [],
        rejected: [{ path: second, reason: 'could not be read again' }],
      });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('namazu replay --loop', () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    server = await startTestServer({ listen: false });
    dir = mkdtempSync(join(tmpdir(), 'namazu-replay-loop-'));
    symlinkSync(join(jmaXmlRoot, 'jma-official-samples', CHAIN[0]!), join(dir, CHAIN[0]!));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a pass that takes less than a second: every pass stores new telegrams, none is a duplicate', async () => {
    const out: string[] = [];
    const stop = new AbortController();
    const io = commandIo(server, dir, out, stop.signal);
    setTimeout(() => stop.abort(new Error('stopped')), 2500);
    // Stopped between passes it ends; within one, with the signal's reason.
    await replayCommand(['--loop', '--speed', '100000', '.'], io).catch((err: Error) =>
      assert.equal(err.message, 'stopped'),
    );
    const passes = out
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ingested: number; duplicates: number });
    assert.ok(passes.length >= 2, `${passes.length} passes`);
    assert.ok(passes.length <= 4, `${passes.length} passes in 2.5 s: no pass over the same second`);
    assert.deepEqual(
      passes.map((p) => p.duplicates),
      passes.map(() => 0),
    );
  });
});
