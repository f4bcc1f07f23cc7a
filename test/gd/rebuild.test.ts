import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { TelegramJSONMain } from '@dmdata/telegram-json-types';
import { earthquakeEvent, listEarthquakeEvents } from '../../src/gd/earthquake-store.ts';
import { eewEvent, listEewRecords } from '../../src/gd/eew.ts';
import { rebuildGdProjections, recordGdReport } from '../../src/gd/projections.ts';
import type { ProjectionInput } from '../../src/gd/types.ts';
import { projected, realTelegram, realWebSocket, sample, typeOfName } from './helpers.ts';
import { openTestDb, type TestDb } from '../support/database.ts';

let t: TestDb;
before(async () => {
  t = await openTestDb();
});
after(() => t.close());

const earthquakeSamples = [
  ['earthquake-information', 'vxse51_rjtd_20210213230936'],
  ['earthquake-information', 'vxse52_rjtd_20210213231144'],
  ['earthquake-information', 'vxse53_rjtd_20210213231302'],
  ['earthquake-information', 'vxse51_rtjt_20210320181229'],
  ['earthquake-information', 'vxse53_rjtd_20210320181304'],
  ['earthquake-hypocenter-update', 'vxse61_rjtd_20210320201026'],
  ['earthquake-information', 'vxse53_rjtd_20210722064405'],
  ['earthquake-information', 'vxse53_rjtd_20080614090634'],
  ['eew-information', 'vxse44_rjtd_20180906031016'],
  ['eew-information', 'vxse42_rjtd_20090811050000'],
] as const;

function inputs(): ProjectionInput<TelegramJSONMain>[] {
  const all: ProjectionInput<TelegramJSONMain>[] = earthquakeSamples.map(([schema, name], i) =>
    projected(sample(schema, name), typeOfName(name), 10 + i, {
      receivedTime: `2026-01-01T00:00:${10 + i}.000Z`,
    }),
  );
  for (const [i, n] of [1, 2, 3].entries()) {
    const { document, id, type, receivedTime } = realWebSocket(`socket-vxse45-20260311184809-${n}`);
    all.push(projected(document, type, 30 + i, { id, receivedTime }));
  }
  all.push(
    projected(realTelegram('vxse45-cancel'), 'VXSE45', 40, { receivedTime: '2026-01-01T00:01:00.000Z' }),
  );
  return all;
}

async function snapshot() {
  const q = t.db;
  return {
    earthquakes: await listEarthquakeEvents(q, { limit: 100 }),
    details: await Promise.all(
      ['20210213230800', '20210320180954', '20210722061500'].map((e) => earthquakeEvent(q, e)),
    ),
    eew: await listEewRecords(q, { limit: 100 }),
    eewEvents: await Promise.all(
      ['20260311184809', '20230906063640', '20180906030805'].map((e) => eewEvent(q, e)),
    ),
  };
}

it('rebuilding from the stored documents, in any order and with repeats, gives the same projections', async () => {
  const ordered = inputs();
  const entered: (string | null)[] = [];
  for (const input of ordered) entered.push(await recordGdReport(t.db, input));
  assert.deepEqual(entered, [
    ...Array(8).fill('earthquake'),
    'eew',
    null, // VXSE42 is a test type
    'eew',
    'eew',
    'eew',
    'eew',
  ]);
  const live = await snapshot();
  assert.deepEqual(
    live.earthquakes.items.map((e) => [e.id, e.eventId, e.type, e.maxInt]),
    [
      [16, '20210722061500', 'distant', null],
      [13, '20210320180954', 'normal', '5+'],
      [10, '20210213230800', 'normal', '6+'],
    ],
  );
  assert.deepEqual(
    live.eew.items.map((r) => [r.id, r.eventId, r.isCanceled]),
    [
      [40, '20230906063640', true],
      [32, '20260311184809', false],
      [18, '20180906030805', false],
    ],
  );

  const counts = await t.db.tx((q) => rebuildGdProjections(q, [...ordered].reverse().concat(ordered)));
  assert.deepEqual(counts, { earthquake: 16, eew: 10 });
  assert.deepEqual(await snapshot(), live);
});
