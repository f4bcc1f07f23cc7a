import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { EewInformation } from '@dmdata/telegram-json-types';
import type { Db } from '../../src/db/types.ts';
import { eewEvent, listEewRecords, recordEewReport } from '../../src/gd/eew.ts';
import { clearGdProjections } from '../../src/gd/projections.ts';
import type { EewDocument } from '../../src/gd/types.ts';
import { eewDoc, projected, realTelegram, realWebSocket, sample } from './helpers.ts';
import { openTestDb, type TestDb } from '../support/database.ts';

type PublicBody = EewInformation.v1_0_0.PublicCommonBody;
const bodyOf = (doc: EewDocument) => doc.body as PublicBody;

describe('early warnings', () => {
  let t: TestDb;
  let db: Db;
  before(async () => {
    t = await openTestDb();
    db = t.db;
  });
  after(() => t.close());
  beforeEach(() => clearGdProjections(db));

  const record = (
    doc: EewDocument,
    type: string,
    serial: number,
    options?: { test?: boolean; receivedTime?: string },
  ) => recordEewReport(db, projected(doc, type, serial, options));
  const list = (f: Partial<Parameters<typeof listEewRecords>[1]> = {}) =>
    listEewRecords(db, { limit: 20, ...f });

  it('an event is listed once its final report arrives (real VXSE45 serial 1 → 3)', async () => {
    const reports = [1, 2, 3].map((n) => realWebSocket<EewDocument>(`socket-vxse45-20260311184809-${n}`));
    await record(reports[0]!.document, 'VXSE45', 11);
    await record(reports[1]!.document, 'VXSE45', 12);
    assert.deepEqual(await list(), { items: [] });
    const pending = await eewEvent(db, '20260311184809');
    assert.deepEqual(
      pending?.map((r) => [r.id, r.serial, r.isLastInfo]),
      [
        [12, 2, false],
        [11, 1, false],
      ],
    );

    await record(reports[2]!.document, 'VXSE45', 13);
    const final = bodyOf(reports[2]!.document);
    const expected = {
      id: 13,
      eventId: '20260311184809',
      serial: 3,
      dateTime: '2026-03-11T18:48:56+09:00',
      isLastInfo: true,
      isCanceled: false,
      isWarning: false,
      earthquake: final.earthquake,
      intensity: final.intensity!,
    };
    assert.deepEqual(await list(), { items: [expected] });
    assert.equal(final.earthquake.hypocenter.reduce.name, '青森東方沖');
    assert.deepEqual(final.intensity!.forecastMaxInt, { from: '2', to: '2' });
    const all = await eewEvent(db, '20260311184809');
    assert.deepEqual(
      all?.map((r) => [r.id, r.serial, r.isLastInfo]),
      [
        [13, 3, true],
        [12, 2, false],
        [11, 1, false],
      ],
    );
    assert.deepEqual(all![0], expected);
  });

  it('a cancellation is the event’s record, without isWarning, earthquake or intensity', async () => {
    const cancel = realTelegram<EewDocument>('vxse45-cancel');
    await record(
      eewDoc('VXSE45', {
        eventId: '20230906063640',
        serialNo: '1',
        reportDateTime: '2023-09-06T06:37:40+09:00',
        isWarning: true,
        forecastMaxInt: { from: '5-', to: 'over' },
      }),
      'VXSE45',
      21,
    );
    await record(cancel, 'VXSE45', 22);
    assert.deepEqual(await list(), {
      items: [
        {
          id: 22,
          eventId: '20230906063640',
          serial: 2,
          dateTime: '2023-09-06T06:37:52+09:00',
          isLastInfo: true,
          isCanceled: true,
          text: '先ほどの、緊急地震速報（地震動予報）を取り消します。',
        },
      ],
    });
    const [, first] = (await eewEvent(db, '20230906063640'))!;
    assert.equal(first!.isWarning, true);
    assert.deepEqual(first!.intensity?.forecastMaxInt, { from: '5-', to: 'over' });
  });

  it('a report that is not final stays out of the list', async () => {
    const plum = realTelegram<EewDocument>('vxse45-temporalhypocenter');
    await record(plum, 'VXSE45', 31);
    assert.deepEqual(await list(), { items: [] });
    const [only] = (await eewEvent(db, '20230505215718'))!;
    assert.equal(only!.isLastInfo, false);
    assert.equal(only!.isWarning, true);
    assert.equal(only!.earthquake?.condition, '仮定震源要素');
    assert.equal(await eewEvent(db, '20230505215719'), null);
  });

  it('free text is kept; intensity is absent when not computed', async () => {
    const threshold = realTelegram<EewDocument>('vxse45-thresholdexceeded');
    await record(threshold, 'VXSE45', 41);
    const [first] = (await eewEvent(db, '20230513161031'))!;
    assert.equal(
      first!.text,
      '１３日１６時１０分３１秒頃\n鹿児島県鹿児島十島村付近　最大震度５弱程度以上と推定',
    );
    const noIntensity = eewDoc('VXSE45', {
      eventId: '20260401000000',
      serialNo: '4',
      reportDateTime: '2026-04-01T00:00:30+09:00',
      isLastInfo: true,
    });
    await record(noIntensity, 'VXSE45', 42);
    const { items } = await list();
    assert.deepEqual(items, [
      {
        id: 42,
        eventId: '20260401000000',
        serial: 4,
        dateTime: '2026-04-01T00:00:30+09:00',
        isLastInfo: true,
        isCanceled: false,
        isWarning: false,
        earthquake: bodyOf(noIntensity).earthquake,
      },
    ]);
  });

  it('official samples: the VXSE44 final report is listed; the 2011 warning is superseded by its cancellation; the test type never enters', async () => {
    const forecast = sample<EewDocument>('eew-information', 'vxse44_rjtd_20180906031016');
    const warning = sample<EewDocument>('eew-information', 'vxse43_rjtd_20110311144810');
    const cancel = sample<EewDocument>('eew-information', 'vxse45_rjtd_20110311144811');
    const drill = sample<EewDocument>('eew-information', 'vxse42_rjtd_20090811050000');
    assert.equal(await record(forecast, 'VXSE44', 51), '20180906030805');
    assert.equal(await record(warning, 'VXSE43', 52), '20110311144640');
    assert.equal(await record(cancel, 'VXSE45', 53), '20110311144640');
    assert.equal(await record(drill, 'VXSE42', 54), null);
    const { items } = await list();
    assert.deepEqual(
      items.map((i) => [i.id, i.eventId, i.serial, i.isCanceled, i.isWarning ?? null]),
      [
        [53, '20110311144640', 23, true, null],
        [51, '20180906030805', 26, false, true],
      ],
    );
    assert.deepEqual(items[1]!.intensity?.forecastMaxInt, { from: '7', to: '7' });
    assert.equal(await eewEvent(db, '20090811050000'), null);
  });

  it('test telegrams never enter', async () => {
    const base = {
      eventId: '20260402000000',
      serialNo: '1',
      reportDateTime: '2026-04-02T00:00:10+09:00',
      isLastInfo: true,
    };
    assert.equal(await record(eewDoc('VXSE45', { ...base, status: '訓練' }), 'VXSE45', 61), null);
    assert.equal(await record(eewDoc('VXSE45', base), 'VXSE45', 62, { test: true }), null);
    assert.deepEqual(await list(), { items: [] });
    assert.equal(await eewEvent(db, '20260402000000'), null);
  });

  it('one record per event: the highest serial number, VXSE45 before VXSE44, recorded twice or out of order alike', async () => {
    const event = '20260403000000';
    const at = (s: number) => `2026-04-03T00:00:${String(10 + s).padStart(2, '0')}+09:00`;
    const reports: [EewDocument, string, number][] = [
      [eewDoc('VXSE44', { eventId: event, serialNo: '1', reportDateTime: at(1) }), 'VXSE44', 71],
      [eewDoc('VXSE45', { eventId: event, serialNo: '1', reportDateTime: at(1) }), 'VXSE45', 72],
      [
        eewDoc('VXSE45', {
          eventId: event,
          serialNo: '2',
          reportDateTime: at(2),
          isLastInfo: true,
          forecastMaxInt: { from: '4', to: '5-' },
        }),
        'VXSE45',
        73,
      ],
      [
        eewDoc('VXSE44', {
          eventId: event,
          serialNo: '2',
          reportDateTime: at(2),
          isLastInfo: true,
          forecastMaxInt: { from: '4', to: '5-' },
        }),
        'VXSE44',
        74,
      ],
    ];
    for (const [doc, type, serial] of reports) await record(doc, type, serial);
    const inOrder = { list: await list(), event: await eewEvent(db, event) };
    assert.deepEqual(
      inOrder.list.items.map((i) => [i.id, i.serial]),
      [[73, 2]],
    );
    assert.deepEqual(
      inOrder.event?.map((r) => r.id),
      [74, 73, 72, 71],
    );
    await clearGdProjections(db);
    for (const [doc, type, serial] of [...reports].reverse()) await record(doc, type, serial);
    for (const [doc, type, serial] of reports) await record(doc, type, serial);
    assert.deepEqual({ list: await list(), event: await eewEvent(db, event) }, inOrder);
  });

  describe('datetime range and paging', () => {
    const finals = [
      ['20260501000000', '2026-04-30T14:59:59.999Z'],
      ['20260501000100', '2026-04-30T15:00:00.000Z'],
      ['20260501000200', '2026-04-30T20:00:00.000Z'],
      ['20260501000300', '2026-05-01T14:59:59.999Z'],
      ['20260501000400', '2026-05-01T15:00:00.000Z'],
    ] as const;
    beforeEach(async () => {
      for (const [i, [eventId, receivedTime]] of finals.entries()) {
        const doc = eewDoc('VXSE45', {
          eventId,
          serialNo: '3',
          reportDateTime: receivedTime,
          isLastInfo: true,
        });
        await record(doc, 'VXSE45', 100 + i, { receivedTime });
      }
    });
    const ids = async (f: Parameters<typeof list>[0]) => (await list(f)).items.map((i) => i.id);

    it('filters on the reception time of the final report, end exclusive, either side optional', async () => {
      const from = new Date('2026-04-30T15:00:00.000Z');
      const to = new Date('2026-05-01T15:00:00.000Z');
      assert.deepEqual(await ids({ datetimeFrom: from, datetimeTo: to }), [103, 102, 101]);
      assert.deepEqual(await ids({ datetimeFrom: from }), [104, 103, 102, 101]);
      assert.deepEqual(await ids({ datetimeTo: to }), [103, 102, 101, 100]);
    });

    it('nextToken pages lose and repeat nothing', async () => {
      const first = await list({ limit: 2 });
      assert.deepEqual(
        first.items.map((i) => i.id),
        [104, 103],
      );
      const second = await list({ limit: 2, cursor: { position: first.nextToken! } });
      assert.deepEqual(
        second.items.map((i) => i.id),
        [102, 101],
      );
      const third = await list({ limit: 2, cursor: { position: second.nextToken! } });
      assert.deepEqual(third, { items: (await list()).items.slice(4) });
      assert.equal(third.items[0]!.id, 100);
      const ranged = await list({ limit: 2, datetimeTo: new Date('2026-05-01T15:00:00.000Z') });
      assert.deepEqual(
        ranged.items.map((i) => i.id),
        [103, 102],
      );
      const rangedNext = await list({
        limit: 2,
        datetimeTo: new Date('2026-05-01T15:00:00.000Z'),
        cursor: { position: ranged.nextToken! },
      });
      assert.deepEqual(
        rangedNext.items.map((i) => i.id),
        [101, 100],
      );
      assert.equal(rangedNext.nextToken, undefined);
    });
  });
});
