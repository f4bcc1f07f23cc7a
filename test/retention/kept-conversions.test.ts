/**
 * A conversion kept for /v2/gd keeps its XML source (docs/operations.md "How pruning runs"): an
 * orphaned conversion made the same XML, ingested again (`namazu replay` of an old directory), fail
 * to store, its conversion colliding with the kept one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { DEFAULT_RETENTION_DAYS } from '../../src/config.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { files, ingestNamed } from '../api/gd-support.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const QUAKE = '20210216071046_0_VXSE53_270000.xml';
const EEW_FINAL = '77_01_02_240613_VXSE45.xml';
/** A training report: no projection takes it, so it goes with its conversion. */
const TRAINING = '32-35_01_02_240613_VXSE52.xml';

describe('retention of the XML behind a kept /v2/gd conversion', () => {
  let server: TestServer;
  const clock = new ManualClock(T0);
  let serials: Map<string, number>;
  const kept = async () =>
    (await server.ctx.db.query<{ serial: number }>('SELECT serial FROM telegrams ORDER BY serial')).map(
      (r) => r.serial,
    );

  before(async () => {
    server = await startTestServer({
      clock,
      config: {
        retentionDays: {
          ...DEFAULT_RETENTION_DAYS,
          'telegram.earthquake': 30,
          'eew.forecast': 30,
          'gd.earthquake': 0,
          'gd.eew': 0,
        },
        retentionIntervalMs: 0,
      },
    });
    serials = await ingestNamed(server, [QUAKE, EEW_FINAL, TRAINING]);
    clock.set(T0 + 60 * DAY);
    await server.retention.pruner.runOnce();
  });
  after(() => server?.close());

  it('keeps the XML of each conversion a kept report names, and prunes the rest', async () => {
    const quake = serials.get(QUAKE)!;
    const eew = serials.get(EEW_FINAL)!;
    assert.deepEqual(await kept(), [quake - 1, quake, eew - 1, eew]);
  });

  it('the same XML ingested again is a duplicate, not an ingest failure', async () => {
    for (const name of [QUAKE, EEW_FINAL]) {
      const outcome = await ingestTelegram(server.ctx, readFileSync(files(name)[0]!.path), {
        fileName: name,
        receivedTime: clock.now(),
      });
      assert.ok(outcome.ok, name);
      assert.equal(outcome.stored.serial, serials.get(name)! - 1, name);
    }
  });
});
