/**
 * The time budget of a telegram's preparation (docs/telegrams.md, "Time budget"): a crafted telegram
 * of the largest size, millions of empty elements in a real JMA envelope, is stopped at the budget and
 * stored without its conversion, counted; a real telegram sent right after it is prepared by the other
 * runner and stored, converted and delivered without waiting for it; each is stored once. Live
 * (`ingestTelegram`, child processes) and bulk (`ingestInOrder`, worker threads).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MAX_TELEGRAM_BYTES } from '../../src/config.ts';
import { overBudgetReason } from '../../src/telegrams/budget.ts';
import { recentConversionFailures } from '../../src/telegrams/conversion-failures.ts';
import { ingestInOrder, ingestTelegram, type IngestOutcome } from '../../src/telegrams/ingest.ts';
import { PreparePool } from '../../src/telegrams/prepare-pool.ts';
import { readTelegram } from '../../src/telegrams/read.ts';
import { HEAD_READ_BYTES } from '../../src/telegrams/xml.ts';
import { allRestXmlFixtures, fixture, fixtureIndex } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * What may follow the budget: a prepare process started (from the TypeScript sources, on a busy
 * machine), the crafted telegram prepared again unconverted, and stored.
 */
const MARGIN_MS = 20_000;

const envelope = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml'), 'utf8');
/** A real earthquake report of 83 KB, large enough to be prepared in a prepare process. */
const REAL = '32-35_01_03_240613_VXSE53.xml';
const real = readFileSync(fixture('official', REAL));
/** A real weather warning of 142 KB (not delivered to the sockets of these tests), to time. */
const TIMED = fixture('official', '15_11_01_150916_VPWW54.xml');

/** `size` bytes: a real telegram's envelope with empty elements filling its Body, `mark` to tell them apart. */
function crafted(mark: string, size = DEFAULT_MAX_TELEGRAM_BYTES): Buffer {
  const at = envelope.lastIndexOf('</Body>');
  const head = `${envelope.slice(0, at)}<!--${mark}-->`;
  const fill = size - Buffer.byteLength(head + envelope.slice(at));
  const elements = '<a/>'.repeat(Math.floor(fill / 4));
  return Buffer.from(head + elements + ' '.repeat(fill % 4) + envelope.slice(at));
}

/** How long `run` took the second of two times (the first warms up what it runs on). */
async function secondRunMs(run: () => Promise<void>): Promise<number> {
  await run();
  const started = performance.now();
  await run();
  return performance.now() - started;
}

describe('a telegram over the preparation time budget', () => {
  let server: TestServer;
  /** The ingest's dependencies with the budget of these tests. */
  let deps: TestServer['ctx'];
  let budgetMs: number;

  before(async () => {
    server = await startTestServer();
  });

  /**
   * The two runners of `pool` started and warm for the real telegram (each takes one of two at once:
   * a job goes to the runner with the fewest bytes to prepare), so that the real one sent beside the
   * crafted one is converted by the other runner without first compiling its converter and schema
   * check; and the budget: ten times what one takes now for a real telegram larger than that one,
   * and at least 1.5 s, but at most 70 % of what preparing the crafted one takes now in a runner of
   * `pool` (on a quiet machine about 1.2 s). Timed there, not on this thread: reading it here took
   * Node 22 2 s, while a runner prepared it whole in 1.2 s, within a budget set from the read. Right
   * before the telegrams: idle runners stop after 10 s.
   */
  async function warmUp(pool: PreparePool): Promise<void> {
    assert.equal(pool.size, 2);
    const hints = () => ({ receivedTime: Date.now() });
    const warming = [0, 1].map(() => pool.prepare(real, hints(), true, true));
    for (const preparing of warming) assert.ok(await preparing, 'a runner to warm');
    // Timed the second time (a duplicate, prepared all the same): the first warms its converter up.
    const timedMs = await secondRunMs(async () =>
      assert.ok((await ingestTelegram(server.ctx, readFileSync(TIMED), hints())).ok),
    );
    // Below what preparing the crafted telegram takes there now, so that it cannot be prepared
    // within the budget on a quiet machine either. Timed the second time, as above.
    const timed = crafted('timed');
    const craftedPreparedMs = await secondRunMs(async () => {
      assert.ok(await pool.prepare(timed, hints(), true, true), 'a runner to time the crafted telegram on');
    });
    budgetMs = Math.round(Math.min(Math.max(1500, 10 * timedMs), 0.7 * craftedPreparedMs));
    deps = { ...server.ctx, config: { ...server.ctx.config, prepareTimeoutMs: budgetMs } };
  }

  after(() => server.close());

  const overBudget = async () =>
    (await server.ctx.metrics.preparationsOverBudget.get()).values[0]?.value ?? 0;
  const storedWith = async (id: string) =>
    (
      await server.ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM telegrams WHERE id = $1 OR original_id = $1',
        [id],
      )
    )[0]!.n;
  /** A socket of an account of its own (an account's sockets are limited). */
  const socket = async (formatMode: 'raw' | 'json') => {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
    const res = await fetch(`${server.url}/v2/socket`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      // REAL is one of JMA's training samples (訓練): delivered only to sessions that take them.
      body: JSON.stringify({ classifications: ['telegram.earthquake'], formatMode, test: 'including' }),
    });
    assert.equal(res.status, 200);
    const client = new TestClient(((await res.json()) as { websocket: { url: string } }).websocket.url, [
      'service.v2',
    ]);
    assert.equal((await client.next()).type, 'start');
    return client;
  };
  /** The next telegram's id; a telegram that never comes fails the test instead of holding it. */
  const nextData = async (client: TestClient) => {
    const deadline = AbortSignal.timeout(60_000);
    for (;;) {
      const message = await Promise.race([
        client.next<{ type: string; id: string }>(),
        new Promise<never>((_, reject) =>
          deadline.addEventListener('abort', () => reject(new Error('no telegram within 60 s')), {
            once: true,
          }),
        ),
      ]);
      if (message.type === 'data') return message.id;
    }
  };

  // A preparation that never settles fails here rather than at the runner's 10-minute limit.
  it(
    'is stored unconverted within the budget and counted; a real one sent after it does not wait',
    { timeout: 240_000 },
    async () => {
      const raw = await socket('raw');
      const json = await socket('json');
      const counted = await overBudget();
      const big = crafted('live');
      assert.equal(big.length, DEFAULT_MAX_TELEGRAM_BYTES);
      await warmUp(server.ctx.preparePools.live);

      const sentAt = performance.now();
      const settledAt = (outcome: Promise<IngestOutcome>) =>
        outcome.then((o) => ({ outcome: o, ms: performance.now() - sentAt }));
      const slow = settledAt(ingestTelegram(deps, big, { receivedTime: Date.now() }));
      const fast = settledAt(ingestTelegram(deps, real, { fileName: REAL, receivedTime: Date.now() }));

      const realDone = await fast;
      assert.ok(realDone.outcome.ok);
      assert.equal(realDone.outcome.stored.duplicate, false);
      assert.ok(realDone.outcome.converted, 'the real telegram is stored with its conversion');
      assert.equal(realDone.outcome.conversionFailure, undefined);
      assert.ok(realDone.ms < budgetMs, `the real telegram took ${realDone.ms} ms`);

      const craftedDone = await slow;
      assert.ok(craftedDone.outcome.ok);
      const { stored, converted, conversionFailure } = craftedDone.outcome;
      assert.ok(realDone.ms < craftedDone.ms, 'the real telegram did not wait for the crafted one');
      assert.ok(craftedDone.ms >= budgetMs, `stopped at the budget, not before: ${craftedDone.ms} ms`);
      assert.ok(craftedDone.ms < budgetMs + MARGIN_MS, `stored ${craftedDone.ms} ms after it was sent`);
      assert.equal(converted, undefined);
      assert.deepEqual(conversionFailure?.reason, overBudgetReason(budgetMs));
      assert.deepEqual([stored.classification, stored.duplicate], ['telegram.earthquake', false]);
      assert.equal(await overBudget(), counted + 1);

      // Each stored once (the real one with its conversion); each delivered, the conversion to JSON mode.
      assert.equal(await storedWith(stored.id), 1);
      assert.equal(await storedWith(realDone.outcome.stored.id), 2);
      assert.deepEqual(
        new Set([await nextData(raw), await nextData(raw)]),
        new Set([stored.id, realDone.outcome.stored.id]),
      );
      assert.equal(await nextData(json), realDone.outcome.converted.id);
      raw.ws.close();
      json.ws.close();

      // Listed among the conversions that failed, without converting it again.
      const failures = await recentConversionFailures(server.ctx.db, 10);
      assert.deepEqual(
        failures.filter((f) => f.id === stored.id).map((f) => f.schema),
        ['earthquake-information 1.1.0'],
      );
    },
  );

  it(
    'in a bulk ingest, is stored unconverted in its place; the telegrams around it are converted',
    { timeout: 240_000 },
    async (t) => {
      const small = readFileSync(fixture('official', '32-35_04_04_240613_VXSE53.xml'));
      const items = [small, crafted('bulk'), real].map((bytes) => ({
        raw: bytes,
        hints: { receivedTime: Date.now() },
      }));
      // Two runners, as on a machine of three cores or more (one of two cores has one, which the
      // crafted telegram's stop replaces by a cold one for the telegram after it).
      const pool = new PreparePool(2);
      t.after(() => pool.close());
      await warmUp(pool);
      const counted = await overBudget();
      const outcomes: IngestOutcome[] = [];
      await ingestInOrder(deps, items, (outcome) => outcomes.push(outcome), pool);
      const [first, big, last] = outcomes.map((o) => (assert.ok(o.ok), o));
      assert.equal(outcomes.length, 3);
      assert.ok(first!.converted, JSON.stringify(first));
      assert.equal(last!.conversionFailure, undefined, `the real one, at a budget of ${budgetMs} ms`);
      assert.equal(big!.conversionFailure?.reason, overBudgetReason(budgetMs));
      assert.equal(big!.stored.duplicate, false);
      assert.ok(last!.stored.duplicate, 'the real one, stored by the live ingest above, is not stored twice');
      assert.ok(first!.stored.serial < big!.stored.serial, 'stored in order');
      assert.equal(await overBudget(), counted + 1);
      assert.equal(await storedWith(big!.stored.id), 1);
    },
  );
});

describe('reading Control and Head only', () => {
  const hints = { receivedTime: Date.parse('2026-01-02T03:04:05Z') };
  const read = (raw: Buffer, scope: 'whole' | 'head') => {
    const outcome = readTelegram(raw, hints, scope);
    if (!outcome.ok) return outcome;
    const { facts: _facts, ...telegram } = outcome.telegram; // read from the Body
    return { ok: true as const, telegram };
  };

  it('gives every JMA sample the record a whole read gives, without the document and its facts', () => {
    const paths = [...fixtureIndex().map((e) => e.path), ...allRestXmlFixtures()];
    assert.ok(paths.length > 600);
    for (const path of paths) {
      const raw = readFileSync(path);
      const head = readTelegram(raw, hints, 'head');
      assert.ok(!('xmlDocument' in head), path);
      assert.deepEqual(read(raw, 'head'), read(raw, 'whole'), path);
    }
  });

  it('refuses a document whose Head does not end within HEAD_READ_BYTES, or whose Head end is not its own', () => {
    const at = envelope.indexOf('<Head');
    const late = Buffer.from(
      `${envelope.slice(0, at)}<!--${'x'.repeat(HEAD_READ_BYTES)}-->${envelope.slice(at)}`,
    );
    assert.deepEqual(read(late, 'head'), {
      ok: false,
      reason: `no end of Head within the first ${HEAD_READ_BYTES} bytes`,
    });
    assert.ok(read(late, 'whole').ok, 'a whole read takes it');
    const inComment = Buffer.from(envelope.replace('<Control>', '<!--</Head>--><Control>'));
    const outcome = read(inComment, 'head');
    assert.ok(!outcome.ok && /^malformed XML/.test(outcome.reason), JSON.stringify(outcome));
  });
});
