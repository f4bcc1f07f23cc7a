/**
 * Retention over a year (docs/operations.md "Retention"): a year of telegrams arrives under a fake
 * clock (synthetic rows every three hours for four classifications, and real early warnings and
 * earthquake reports, converted and projected, on day 20 and day 300); one pruning run at the end
 * of the year. What is kept and what is gone is computed here from the schedule, then checked in the
 * database, the lists (with cursors taken before the run), bodies, /v2/gd and /metrics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/clock.ts';
import { DEFAULT_RETENTION_DAYS, loadConfig, ConfigError } from '../../src/config.ts';
import { busCodecs } from '../../src/bus/codecs.ts';
import { Pruner, type PruneReport } from '../../src/retention/pruner.ts';
import type { Queryable } from '../../src/db/types.ts';
import { getJson, settle } from '../support/data-api.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { testFetch } from '../support/fetch.ts';
import { ingestNamed } from '../api/gd-support.ts';

const DAY = 86_400_000;
const SLOT = 3 * 3600_000;
const SLOTS_PER_DAY = 8;
const YEAR_SLOTS = 365 * SLOTS_PER_DAY;
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const END = T0 + 365 * DAY;
/** One synthetic telegram per classification in every slot. */
const SYNTHETIC = [
  { classification: 'telegram.forecast', type: 'VPFD51' },
  { classification: 'telegram.weather', type: 'VPWW54' },
  { classification: 'telegram.observation', type: 'VGSK50' },
  { classification: 'telegram.earthquake', type: 'VXSE56' },
] as const;
const RETENTION = {
  ...DEFAULT_RETENTION_DAYS,
  'telegram.observation': 30,
  'eew.forecast': 30,
  'eew.warning': 30,
  'gd.eew': 90,
  'gd.earthquake': 200,
};
/** Two early-warning events and two earthquakes, the first of each on day 20, the second on day 300. */
const EEW_OLD = ['77_01_01_240613_VXSE45.xml', '77_01_02_240613_VXSE45.xml'];
const EEW_RECENT = ['37_04_01_110311_VXSE43.xml', '77_01_01_110311_VXSE45.xml'];
const QUAKE_OLD = ['20210216071046_0_VXSE53_270000.xml'];
const QUAKE_RECENT = ['20230410231623_04156158_VXSE53.xml'];

/** First slot kept by a retention of `days` at END (a slot is kept when received at or after the cutoff). */
const firstKeptSlot = (days: number) => (365 - days) * SLOTS_PER_DAY;

/** 30 forecast rows received at `receivedTime`, with ids starting with `tag` (tests of runs and reclaims). */
const insertForecasts = (db: Queryable, receivedTime: Date, tag: string) =>
  db.query(
    `INSERT INTO telegrams (id, raw_digest, classification, type, author, head_time, test, format,
       received_time, encoding, body)
     SELECT $2 || g, 'raw-' || $2 || g, 'telegram.forecast', 'VPFD51', 'JPTD', $1, false, 'xml', $1, 'utf-8', '\\x00'::bytea
     FROM generate_series(1, 30) g`,
    [receivedTime, tag],
  );

describe('retention over a year of telegrams', () => {
  let server: TestServer;
  let key: string;
  const clock = new ManualClock(T0);
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);
  let report: PruneReport;
  let olderCursor: string;
  let olderCursorSerial: number;
  let pollingCursor: string;
  let prunedForecastId: string;
  let eventIds: { eewOld: string; eewRecent: string; quakeOld: string; quakeRecent: string };
  let recentEewJsonSerials: number[];
  let recentEewXmlSerials: number[];

  /** Synthetic rows for slots [from, to): each classification once per slot, in slot order. */
  async function fill(from: number, to: number) {
    const values = SYNTHETIC.map((s, k) => `('${s.classification}', '${s.type}', ${k})`).join(', ');
    await server.ctx.db.query(
      `INSERT INTO telegrams (id, raw_digest, classification, type, author, head_time, test, format,
         received_time, compression, encoding, body)
       SELECT encode(sha384(('body-' || g || '-' || k)::bytea), 'hex'), encode(sha384(('raw-' || g || '-' || k)::bytea), 'hex'),
         c, t, 'JPTD', $3::timestamptz + make_interval(secs => g * ${SLOT / 1000}), false, 'xml',
         $3::timestamptz + make_interval(secs => g * ${SLOT / 1000}), 'gzip', 'base64', '\\x1f8b08000000000000030300000000000000000000'::bytea
       FROM generate_series($1::int, $2::int) AS g, (VALUES ${values}) AS s (c, t, k)
       ORDER BY g, k`,
      [from, to - 1, new Date(T0)],
    );
  }

  async function eventOf(table: 'gd_eew_reports' | 'gd_earthquake_reports', jsonSerial: number) {
    const [row] = await server.ctx.db.query<{ event_id: string }>(
      `SELECT event_id FROM ${table} WHERE serial = $1`,
      [jsonSerial],
    );
    return row!.event_id;
  }

  before(async () => {
    server = await startTestServer({
      clock,
      config: { retentionDays: RETENTION, retentionIntervalMs: 0, retentionBatchMs: 200 },
    });
    const { account } = await server.createAccount({
      contracts: [...SYNTHETIC.map((s) => s.classification), 'eew.forecast', 'eew.warning'],
    });
    key = await server.createApiKey(account.id, [
      'telegram.list',
      'telegram.data',
      'telegram.get.forecast',
      'gd.eew',
      'gd.earthquake',
    ]);

    await fill(0, 8);
    await settle(server);
    // A polling client that started on the first day.
    pollingCursor = (await get('/v2/telegram?type=VPFD51&limit=1')).body.nextPooling;
    await fill(8, 20 * SLOTS_PER_DAY);
    clock.set(T0 + 20 * DAY + 60_000);
    const eewOld = await ingestNamed(server, EEW_OLD);
    const quakeOld = await ingestNamed(server, QUAKE_OLD);
    await fill(20 * SLOTS_PER_DAY, 300 * SLOTS_PER_DAY);
    clock.set(T0 + 300 * DAY + 60_000);
    const eewRecent = await ingestNamed(server, EEW_RECENT);
    const quakeRecent = await ingestNamed(server, QUAKE_RECENT);
    await fill(300 * SLOTS_PER_DAY, YEAR_SLOTS);
    clock.set(END);
    await settle(server);
    recentEewJsonSerials = [...eewRecent.values()];
    recentEewXmlSerials = recentEewJsonSerials.map((s) => s - 1);
    eventIds = {
      eewOld: await eventOf('gd_eew_reports', eewOld.get(EEW_OLD[0]!)!),
      eewRecent: await eventOf('gd_eew_reports', recentEewJsonSerials[0]!),
      quakeOld: await eventOf('gd_earthquake_reports', quakeOld.get(QUAKE_OLD[0]!)!),
      quakeRecent: await eventOf('gd_earthquake_reports', quakeRecent.get(QUAKE_RECENT[0]!)!),
    };

    // A client paging back through March (forecasts and observations there will be pruned).
    const march = await get('/v2/telegram?datetime=~2025-03-01T09:00:00&limit=10');
    olderCursor = march.body.nextToken;
    olderCursorSerial = march.body.items.at(-1).serial;
    // Read once before pruning: the page is fixed until pruning changes it, and then must change.
    const olderPage = await get(`/v2/telegram?cursorToken=${olderCursor}&limit=10`);
    assert.ok(
      olderPage.body.items.some((t: { classification: string }) =>
        ['telegram.forecast', 'telegram.observation'].includes(t.classification),
      ),
    );
    assert.equal((await get(`/v2/telegram?type=VPFD51&cursorToken=${pollingCursor}&limit=100`)).status, 200);
    const oldForecast = await get('/v2/telegram?type=VPFD51&datetime=~2025-02-01T09:00:00&limit=1');
    prunedForecastId = oldForecast.body.items[0].id;
    assert.equal((await testFetch(`${oldForecast.body.items[0].url}?key=${key}`)).status, 200);

    report = await server.retention.pruner.runOnce();
    await server.retention.refreshStats();
  });
  after(() => server?.close());

  it('deletes what is older than its classification keeps, and nothing else', async () => {
    const expected = {
      'telegram.forecast': firstKeptSlot(180),
      'telegram.observation': firstKeptSlot(30),
    };
    assert.equal(report.outcome, 'done');
    // Early warnings: the two XML telegrams and conversions of day 20; those of day 300 stay with
    // the kept projection.
    assert.deepEqual(report.telegrams, { ...expected, 'eew.forecast': 2 * 2 });
    assert.deepEqual(report.events, { earthquake: 1, eew: 1 });
    const counts = await server.ctx.db.query<{ classification: string; n: number; oldest: Date }>(
      `SELECT classification, count(*)::int8 AS n, min(received_time) AS oldest FROM telegrams
       WHERE classification LIKE 'telegram.%' GROUP BY classification ORDER BY classification`,
    );
    const byClass = Object.fromEntries(counts.map((c) => [c.classification, c]));
    assert.equal(byClass['telegram.forecast']!.n, YEAR_SLOTS - expected['telegram.forecast']);
    assert.equal(byClass['telegram.forecast']!.oldest.getTime(), END - 180 * DAY);
    assert.equal(byClass['telegram.observation']!.n, YEAR_SLOTS - expected['telegram.observation']);
    assert.equal(byClass['telegram.observation']!.oldest.getTime(), END - 30 * DAY);
    // Weather keeps 400 days and earthquakes forever: a year of each is still there.
    assert.equal(byClass['telegram.weather']!.n, YEAR_SLOTS);
    assert.equal(byClass['telegram.earthquake']!.n, YEAR_SLOTS + 2 * 2);

    const again = await server.retention.pruner.runOnce();
    assert.deepEqual([again.outcome, again.telegrams, again.events], ['done', {}, { earthquake: 0, eew: 0 }]);
  });

  it('keeps the projections as long as their own setting says, with the telegrams they show', async () => {
    assert.equal((await get(`/v2/gd/eew/${eventIds.eewOld}`)).status, 404);
    const recent = await get(`/v2/gd/eew/${eventIds.eewRecent}`);
    assert.equal(recent.status, 200);
    assert.deepEqual(
      recent.body.items.map((r: { telegrams: { serial: number }[] }) => r.telegrams[0]?.serial).sort(),
      [...recentEewJsonSerials].sort(),
      'each kept report still shows its conversion',
    );
    const xmlLeft = await server.ctx.db.query<{ serial: number }>(
      'SELECT serial FROM telegrams WHERE serial = ANY($1::int8[]) ORDER BY serial',
      [recentEewXmlSerials],
    );
    assert.deepEqual(
      xmlLeft.map((r) => r.serial),
      [...recentEewXmlSerials].sort((a, b) => a - b),
      'the XML telegrams of day 300 stay with their kept conversions',
    );

    assert.equal((await get(`/v2/gd/earthquake/${eventIds.quakeOld}`)).status, 404);
    const quake = await get(`/v2/gd/earthquake/${eventIds.quakeRecent}`);
    assert.equal(quake.status, 200);
    assert.equal(quake.body.event.telegrams.length, 1);
    const list = await get('/v2/gd/earthquake?limit=100');
    assert.deepEqual(
      list.body.items.map((e: { eventId: string }) => e.eventId),
      [eventIds.quakeRecent],
    );
  });

  it('a cursor into pruned serials continues from the kept telegrams next to it', async () => {
    const page = await get(`/v2/telegram?cursorToken=${olderCursor}&limit=10`);
    assert.equal(page.status, 200);
    assert.equal(page.body.items.length, 10);
    const [newestBelow] = await server.ctx.db.query<{ serial: number }>(
      `SELECT max(serial)::int8 AS serial FROM telegrams
       WHERE serial < $1 AND classification IN ('telegram.weather', 'telegram.earthquake')`,
      [olderCursorSerial],
    );
    assert.equal(page.body.items[0].serial, newestBelow!.serial);
    for (const t of page.body.items) {
      assert.ok(t.serial < olderCursorSerial);
      assert.ok(['telegram.weather', 'telegram.earthquake'].includes(t.classification), t.classification);
    }

    // The polling client of the first day resumes at the oldest forecast kept.
    const poll = await get(`/v2/telegram?type=VPFD51&cursorToken=${pollingCursor}&limit=100`);
    assert.equal(poll.body.items.length, 100);
    const oldest = poll.body.items.at(-1);
    assert.equal(oldest.receivedTime, new Date(END - 180 * DAY).toISOString());
  });

  it('lists served from memory forget pruned telegrams; their bodies are 404', async () => {
    const listed: { receivedTime: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(`/v2/telegram?type=VGSK50&limit=100${cursor ? `&cursorToken=${cursor}` : ''}`);
      listed.push(...page.body.items);
      cursor = page.body.nextToken;
    } while (cursor);
    assert.equal(listed.length, YEAR_SLOTS - firstKeptSlot(30));
    assert.ok(listed.every((t) => Date.parse(t.receivedTime) >= END - 30 * DAY));

    const gone = await testFetch(`${server.url}/${prunedForecastId}?key=${key}`);
    assert.equal(gone.status, 404);
  });

  it('reports what it pruned and what is kept on /metrics', async () => {
    const text = await (await testFetch(`${server.url}/metrics`)).text();
    const value = (line: string) =>
      Number(new RegExp(`^${line.replace(/[{}.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.equal(
      value('namazu_telegrams_pruned_total{classification="telegram.forecast"}'),
      firstKeptSlot(180),
    );
    assert.equal(
      value('namazu_telegrams_kept{classification="telegram.forecast"}'),
      YEAR_SLOTS - firstKeptSlot(180),
    );
    assert.equal(
      value('namazu_telegrams_oldest_kept_timestamp_seconds{classification="telegram.observation"}'),
      (END - 30 * DAY) / 1000,
    );
    assert.ok(value('namazu_store_table_bytes{table="telegrams"}') > 0);
    assert.equal(value('namazu_gd_events_pruned_total{projection="eew"}'), 1);
  });

  it('the space of deleted rows is used again', async () => {
    const heap = async () =>
      (await server.ctx.db.query<{ n: number }>(`SELECT pg_relation_size('telegrams')::int8 AS n`))[0]!.n;
    // Runs leave the VACUUM to a quiet moment (embedded) or to autovacuum (PostgreSQL; tested below).
    await server.retention.pruner.reclaim();
    const before = await heap();
    // As many new rows as were deleted: they fit in the pages the vacuum freed.
    await fill(
      YEAR_SLOTS,
      YEAR_SLOTS + Math.floor((firstKeptSlot(180) + firstKeptSlot(30)) / SYNTHETIC.length),
    );
    // Without the reuse the heap would grow by a third (the deleted share of a year's rows); with
    // it, PostgreSQL may still add a few pages while its free-space map catches up (5.3 % once).
    assert.ok((await heap()) <= before * 1.15, `heap grew from ${before} to ${await heap()} bytes`);
  });
});

describe('NAMAZU_RETENTION_DAYS', () => {
  it('sets days per classification or projection over the defaults', () => {
    const c = loadConfig({ NAMAZU_RETENTION_DAYS: 'telegram.forecast=30, gd.eew=3650,eew.realtime=0' });
    assert.equal(c.retentionDays['telegram.forecast'], 30);
    assert.equal(c.retentionDays['gd.eew'], 3650);
    assert.equal(c.retentionDays['eew.realtime'], 0);
    assert.equal(c.retentionDays['telegram.weather'], 400);
    assert.equal(loadConfig({}).retentionIntervalMs, 3_600_000);
  });

  it('refuses unknown keys and bad values, naming the setting', () => {
    for (const raw of [
      'telegram.forecasts=3',
      'telegram.forecast',
      'telegram.forecast=-1',
      'gd.eew=36501',
      ',',
    ]) {
      assert.throws(
        () => loadConfig({ NAMAZU_RETENTION_DAYS: raw }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, /NAMAZU_RETENTION_DAYS/);
          return true;
        },
      );
    }
  });
});

describe(
  'one node prunes at a time',
  { skip: testDatabaseUrl === null && 'PostgreSQL only: the embedded database has one process' },
  () => {
    it('a run that finds the lock held by another node deletes nothing and leaves it the work', async () => {
      const clock = new ManualClock(END);
      const server = await startTestServer({
        clock,
        listen: false,
        config: {
          retentionIntervalMs: 0,
          retentionDays: { ...DEFAULT_RETENTION_DAYS, 'telegram.forecast': 1 },
        },
      });
      const other = new pg.Client({ connectionString: server.database.databaseUrl! });
      try {
        await insertForecasts(server.ctx.db, new Date(END - 2 * DAY), 'old-');
        await other.connect();
        // Another node in the middle of a batch: it holds the lock pruning takes.
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock(7262420120)');
        const busy = await server.retention.pruner.runOnce();
        assert.deepEqual([busy.outcome, busy.telegrams], ['busy', {}]);
        await other.query('COMMIT');
        const done = await server.retention.pruner.runOnce();
        assert.deepEqual([done.outcome, done.telegrams], ['done', { 'telegram.forecast': 30 }]);
      } finally {
        await other.end();
        await server.close();
      }
    });
  },
);

describe(
  'the embedded engine reclaims space in a quiet moment, at most once a day',
  {
    skip: testDatabaseUrl !== null && 'embedded only: PostgreSQL leaves it to autovacuum (tested below)',
  },
  () => {
    it('a run deletes while telegrams arrive, and vacuums once none came for the idle time', async () => {
      const clock = new ManualClock(END);
      const server = await startTestServer({ clock, listen: false, config: { retentionIntervalMs: 0 } });
      // The quiet time is thirty times the chatter's period: a busy machine that holds the event loop
      // a few hundred milliseconds (the suites run side by side) does not pass for a quiet moment.
      const pruner = new Pruner(server.ctx, {
        retentionDays: { ...DEFAULT_RETENTION_DAYS, 'telegram.forecast': 1 },
        intervalMs: 3000,
        batchMs: 0,
        reclaimIdleMs: 1500,
      });
      const oldForecasts = (tag: string) =>
        insertForecasts(server.ctx.db, new Date(clock.now() - 2 * DAY), tag);
      const vacuums = async () =>
        (
          await server.ctx.db.query<{ n: number }>(
            `SELECT vacuum_count::int8 AS n FROM pg_stat_user_tables WHERE relname = 'telegrams'`,
          )
        )[0]!.n;
      // Telegrams committed every 50 ms, as the bus announces them to every process.
      const chatter = setInterval(() => void busCodecs.telegram.publish(server.ctx.bus, { serial: 1 }), 50);
      try {
        await oldForecasts('a-');
        const vacuumed = await vacuums();
        const busy = await pruner.runOnce();
        assert.deepEqual(busy.telegrams, { 'telegram.forecast': 30 });
        assert.equal(await vacuums(), vacuumed, 'no VACUUM while telegrams keep arriving');
        clearInterval(chatter);
        const quiet = await pruner.runOnce();
        assert.deepEqual(quiet.telegrams, {});
        assert.ok((await vacuums()) > vacuumed, 'the deleted rows were vacuumed once ingest was quiet');

        // Within a day of that reclaim the next deletions wait; a day later they are reclaimed.
        await oldForecasts('b-');
        const reclaimed = await vacuums();
        assert.deepEqual((await pruner.runOnce()).telegrams, { 'telegram.forecast': 30 });
        assert.equal(await vacuums(), reclaimed);
        clock.advance(DAY);
        await pruner.runOnce();
        assert.ok((await vacuums()) > reclaimed);
      } finally {
        clearInterval(chatter);
        await pruner.stop();
        await server.close();
      }
    });

    it('a batch is one statement, never a transaction holding the only connection', async () => {
      const clock = new ManualClock(END);
      const server = await startTestServer({ clock, listen: false, config: { retentionIntervalMs: 0 } });
      const { db } = server.ctx;
      let transactions = 0;
      const counted: typeof db = { ...db, tx: (fn) => (transactions++, db.tx(fn)) };
      const pruner = new Pruner(
        { ...server.ctx, db: counted },
        {
          retentionDays: {
            ...DEFAULT_RETENTION_DAYS,
            'telegram.forecast': 1,
            'gd.eew': 1,
            'gd.earthquake': 1,
          },
          intervalMs: 0,
          batchMs: 0,
        },
      );
      try {
        await insertForecasts(db, new Date(clock.now() - 2 * DAY), 'a-');
        assert.deepEqual((await pruner.runOnce()).telegrams, { 'telegram.forecast': 30 });
        assert.equal(transactions, 0);
      } finally {
        await pruner.stop();
        await server.close();
      }
    });
  },
);

describe(
  'PostgreSQL leaves the space to autovacuum',
  {
    skip: testDatabaseUrl === null && 'PostgreSQL only: the embedded engine has no autovacuum (tested above)',
  },
  () => {
    it('a run deletes without a VACUUM, and autovacuum starts at 2 % of dead rows', async () => {
      const clock = new ManualClock(END);
      const server = await startTestServer({ clock, listen: false, config: { retentionIntervalMs: 0 } });
      const pruner = new Pruner(server.ctx, {
        retentionDays: { ...DEFAULT_RETENTION_DAYS, 'telegram.forecast': 1 },
        intervalMs: 0,
        batchMs: 0,
      });
      try {
        await insertForecasts(server.ctx.db, new Date(clock.now() - 2 * DAY), 'old-');
        const stats = async () =>
          (
            await server.ctx.db.query<{ vacuums: number; options: string[] | null }>(
              `SELECT vacuum_count::int8 AS vacuums, c.reloptions AS options
                 FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'telegrams'`,
            )
          )[0]!;
        const before = await stats();
        assert.deepEqual((await pruner.runOnce()).telegrams, { 'telegram.forecast': 30 });
        const after = await stats();
        assert.equal(after.vacuums, before.vacuums, 'the run itself does not VACUUM');
        assert.deepEqual(after.options, ['autovacuum_vacuum_scale_factor=0.02']);
      } finally {
        await pruner.stop();
        await server.close();
      }
    });
  },
);
