import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Components } from '@dmdata/telegram-json-types';
import type { Db } from '../../src/db/types.ts';
import {
  earthquakeEvent,
  listEarthquakeEvents,
  recordEarthquakeReport,
} from '../../src/gd/earthquake-store.ts';
import { parseMaxIntFilter } from '../../src/gd/filters.ts';
import { clearGdProjections } from '../../src/gd/projections.ts';
import type { EarthquakeDocument } from '../../src/gd/types.ts';
import { earthquakeDoc, projected, quake, realWebSocket, sample, typeOfName } from './helpers.ts';
import { openTestDb, type TestDb } from '../support/database.ts';

type Body = { earthquake: Components.Earthquake };
const eq = (doc: EarthquakeDocument) => (doc.body as Body).earthquake;

describe('earthquake events', () => {
  let t: TestDb;
  let db: Db;
  before(async () => {
    t = await openTestDb();
    db = t.db;
  });
  after(() => t.close());
  beforeEach(() => clearGdProjections(db));

  const record = (doc: EarthquakeDocument, type: string, serial: number, options?: { test?: boolean }) =>
    recordEarthquakeReport(db, projected(doc, type, serial, options));
  const list = (f: Partial<Parameters<typeof listEarthquakeEvents>[1]> = {}) =>
    listEarthquakeEvents(db, { limit: 20, ...f });

  const E = '20260101100000';
  const quakeA = quake('100', '4.0', '2026-01-01T09:59:50+09:00', '2026-01-01T10:00:00+09:00');
  const quakeB = quake('101', '4.2', '2026-01-01T09:59:40+09:00', '2026-01-01T10:00:00+09:00');
  const quakeC = quake('102', '4.4', '2026-01-01T09:59:45+09:00', '2026-01-01T10:00:00+09:00');
  const flash = earthquakeDoc('VXSE51', {
    eventId: E,
    reportDateTime: '2026-01-01T10:01:00+09:00',
    targetDateTime: '2026-01-01T10:00:00+09:00',
    maxInt: '3',
  });
  const hypo = earthquakeDoc('VXSE52', {
    eventId: E,
    reportDateTime: '2026-01-01T10:03:00+09:00',
    earthquake: quakeA,
  });
  const detail1 = earthquakeDoc('VXSE53', {
    eventId: E,
    reportDateTime: '2026-01-01T10:06:00+09:00',
    serialNo: '1',
    earthquake: quakeB,
    maxInt: '4',
  });

  it('merges an intensity flash, a hypocentre report and a detail report (51 → 52 → 53)', async () => {
    assert.equal(await record(flash, 'VXSE51', 11), E);
    const flashOnly = {
      id: 11,
      type: 'normal',
      eventId: E,
      arrivalTime: '2026-01-01T10:00:00+09:00',
      maxInt: '3',
    };
    assert.deepEqual((await list()).items, [flashOnly]);

    await record(hypo, 'VXSE52', 12);
    assert.deepEqual((await list()).items, [
      {
        id: 11,
        type: 'normal',
        eventId: E,
        originTime: '2026-01-01T09:59:50+09:00',
        arrivalTime: '2026-01-01T10:00:00+09:00',
        hypocenter: quakeA.hypocenter,
        magnitude: quakeA.magnitude,
        maxInt: '3',
      },
    ]);

    await record(detail1, 'VXSE53', 13);
    const merged = {
      id: 11,
      type: 'normal',
      eventId: E,
      originTime: '2026-01-01T09:59:40+09:00',
      arrivalTime: '2026-01-01T10:00:00+09:00',
      hypocenter: quakeB.hypocenter,
      magnitude: quakeB.magnitude,
      maxInt: '4',
    };
    assert.deepEqual((await list()).items, [merged]);
    assert.deepEqual(await earthquakeEvent(db, E), { event: merged, telegramSerials: [11, 12, 13] });
    // Member order as docs/gd.md lists them.
    assert.deepEqual(Object.keys((await list()).items[0]!), Object.keys(merged));
  });

  it('a 取消 of the hypocentre report falls back to the intensity flash', async () => {
    await record(flash, 'VXSE51', 21);
    await record(hypo, 'VXSE52', 22);
    const cancel = earthquakeDoc('VXSE52', {
      eventId: E,
      reportDateTime: '2026-01-01T10:04:00+09:00',
      cancel: true,
    });
    await record(cancel, 'VXSE52', 23);
    const expected = {
      id: 21,
      type: 'normal',
      eventId: E,
      arrivalTime: '2026-01-01T10:00:00+09:00',
      maxInt: '3',
    };
    assert.deepEqual((await list()).items, [expected]);
    assert.deepEqual(await earthquakeEvent(db, E), { event: expected, telegramSerials: [21, 22, 23] });
  });

  it('an event whose only report is withdrawn is not listed', async () => {
    await record(hypo, 'VXSE52', 31);
    await record(
      earthquakeDoc('VXSE52', { eventId: E, reportDateTime: '2026-01-01T10:04:00+09:00', cancel: true }),
      'VXSE52',
      32,
    );
    const page = await list();
    assert.deepEqual(page.items, []);
    assert.equal(page.nextToken, undefined);
    assert.equal(await earthquakeEvent(db, E), null);
  });

  it('a 取消 of the newest detail report falls back to the one before it', async () => {
    await record(hypo, 'VXSE52', 41);
    await record(detail1, 'VXSE53', 42);
    const detail2 = earthquakeDoc('VXSE53', {
      eventId: E,
      reportDateTime: '2026-01-01T10:20:00+09:00',
      serialNo: '2',
      earthquake: quakeC,
      maxInt: '5-',
    });
    await record(detail2, 'VXSE53', 43);
    assert.equal((await list()).items[0]!.maxInt, '5-');
    const cancel = earthquakeDoc('VXSE53', {
      eventId: E,
      reportDateTime: '2026-01-01T10:30:00+09:00',
      serialNo: '3',
      cancel: true,
    });
    await record(cancel, 'VXSE53', 44);
    assert.deepEqual((await list()).items, [
      {
        id: 41,
        type: 'normal',
        eventId: E,
        originTime: '2026-01-01T09:59:40+09:00',
        arrivalTime: '2026-01-01T10:00:00+09:00',
        hypocenter: quakeB.hypocenter,
        magnitude: quakeB.magnitude,
        maxInt: '4',
      },
    ]);
  });

  it('VXSE61 updates hypocentre and magnitude; its 取消 restores the detail report', async () => {
    await record(detail1, 'VXSE53', 51);
    const update = earthquakeDoc('VXSE61', {
      eventId: E,
      reportDateTime: '2026-01-01T11:00:00+09:00',
      earthquake: quake('103', '4.9', '2026-01-01T09:59:41+09:00', '2026-01-01T10:00:01+09:00'),
    });
    await record(update, 'VXSE61', 52);
    assert.deepEqual((await list()).items, [
      {
        id: 51,
        type: 'normal',
        eventId: E,
        originTime: '2026-01-01T09:59:40+09:00',
        arrivalTime: '2026-01-01T10:00:00+09:00',
        hypocenter: eq(update).hypocenter,
        magnitude: { type: 'マグニチュード', unit: 'Mj', value: '4.9' },
        maxInt: '4',
      },
    ]);
    await record(
      earthquakeDoc('VXSE61', { eventId: E, reportDateTime: '2026-01-01T11:10:00+09:00', cancel: true }),
      'VXSE61',
      53,
    );
    assert.deepEqual((await list()).items[0]!.magnitude, quakeB.magnitude);
    assert.deepEqual((await list()).items[0]!.hypocenter, quakeB.hypocenter);
  });

  it('VXSE62 adds maxLgInt and lgCategory and keeps the detail report’s intensity', async () => {
    await record(detail1, 'VXSE53', 61);
    const longPeriod = earthquakeDoc('VXSE62', {
      eventId: E,
      reportDateTime: '2026-01-01T10:10:00+09:00',
      serialNo: '1',
      earthquake: quakeA,
      maxInt: '3',
      lg: { maxLgInt: '2', lgCategory: '2' },
    });
    await record(longPeriod, 'VXSE62', 62);
    const [item] = (await list()).items;
    assert.equal(item!.maxInt, '4');
    assert.equal(item!.maxLgInt, '2');
    assert.equal(item!.lgCategory, '2');
    assert.deepEqual(item!.hypocenter, quakeB.hypocenter);
  });

  it('test telegrams never enter', async () => {
    const drill = earthquakeDoc('VXSE53', { ...detailFields(), status: '訓練' });
    assert.equal(await record(drill, 'VXSE53', 71), null);
    assert.equal(await record(detail1, 'VXSE53', 72, { test: true }), null);
    assert.equal(
      await record(earthquakeDoc('VXSE53', { ...detailFields(), status: '試験' }), 'VXSE53', 73),
      null,
    );
    assert.deepEqual(await list(), { items: [], nextPooling: 0 });
    assert.equal(await earthquakeEvent(db, E), null);
  });
  const detailFields = () => ({
    eventId: E,
    reportDateTime: '2026-01-01T10:06:00+09:00',
    serialNo: '1',
    earthquake: quakeB,
    maxInt: '4',
  });

  it('other data types of the schema are not merged', async () => {
    const notice = { ...flash, type: '地震・津波に関するお知らせ' } as EarthquakeDocument;
    assert.equal(await record(notice, 'VZSE40', 81), null);
    assert.deepEqual((await list()).items, []);
  });

  it('the 2021-02-13 chain (VXSE51 ×2, VXSE52, VXSE53 ×2) gives one event from the newest reports', async () => {
    const names = [
      'vxse51_rjtd_20210213230936',
      'vxse51_rjtd_20210213231135',
      'vxse52_rjtd_20210213231144',
      'vxse53_rjtd_20210213231302',
      'vxse53_rjtd_20210213231800',
    ];
    const docs = names.map((n) => sample<EarthquakeDocument>('earthquake-information', n));
    for (const [i, doc] of docs.entries()) await record(doc, typeOfName(names[i]!), 100 + i);
    const newest = eq(docs[4]!);
    const expected = {
      id: 100,
      type: 'normal',
      eventId: '20210213230800',
      originTime: '2021-02-13T23:07:00+09:00',
      arrivalTime: '2021-02-13T23:08:00+09:00',
      hypocenter: newest.hypocenter,
      magnitude: { type: 'マグニチュード', unit: 'Mj', value: '7.1' },
      maxInt: '6+',
    };
    assert.equal(newest.hypocenter.code, '289');
    assert.deepEqual((await list()).items, [expected]);
    assert.deepEqual(await earthquakeEvent(db, '20210213230800'), {
      event: expected,
      telegramSerials: [100, 101, 102, 103, 104],
    });
  });

  it('the 2021-03-20 chain: VXSE61 replaces the hypocentre and magnitude of VXSE53', async () => {
    const flash = sample<EarthquakeDocument>('earthquake-information', 'vxse51_rtjt_20210320181229');
    const detail = sample<EarthquakeDocument>('earthquake-information', 'vxse53_rjtd_20210320181304');
    const update = sample<EarthquakeDocument>('earthquake-hypocenter-update', 'vxse61_rjtd_20210320201026');
    await record(flash, 'VXSE51', 201);
    await record(detail, 'VXSE53', 202);
    await record(update, 'VXSE61', 203);
    assert.deepEqual((await list()).items, [
      {
        id: 201,
        type: 'normal',
        eventId: '20210320180954',
        originTime: '2021-03-20T18:09:00+09:00',
        arrivalTime: '2021-03-20T18:09:00+09:00',
        hypocenter: eq(update).hypocenter,
        magnitude: { type: 'マグニチュード', unit: 'Mj', value: '6.9' },
        maxInt: '5+',
      },
    ]);
    assert.equal(eq(update).hypocenter.coordinate.latitude?.text, "38˚28.0'N");
  });

  it('a distant earthquake is `distant` with no intensity', async () => {
    const distant = sample<EarthquakeDocument>('earthquake-information', 'vxse53_rjtd_20210722064405');
    await record(distant, 'VXSE53', 301);
    assert.deepEqual((await list()).items, [
      {
        id: 301,
        type: 'distant',
        eventId: '20210722061500',
        originTime: '2021-07-22T06:15:00+09:00',
        arrivalTime: '2021-07-22T06:15:00+09:00',
        hypocenter: eq(distant).hypocenter,
        magnitude: { type: 'マグニチュード', unit: 'M', value: '7.0' },
        maxInt: null,
      },
    ]);
    assert.equal(eq(distant).hypocenter.detailed?.name, 'パナマ南方');
  });

  it('a long-period report alone gives its hypocentre, intensity and long-period class', async () => {
    const longPeriod = sample<EarthquakeDocument>('earthquake-information', 'vxse62_rjtd_20201121023330');
    await record(longPeriod, 'VXSE62', 401);
    assert.deepEqual((await list()).items, [
      {
        id: 401,
        type: 'normal',
        eventId: '20201121023300',
        originTime: '2020-11-21T02:23:00+09:00',
        arrivalTime: '2020-11-21T02:23:10+09:00',
        hypocenter: eq(longPeriod).hypocenter,
        magnitude: { type: 'マグニチュード', unit: 'Mj', value: '6.3' },
        maxInt: '5-',
        maxLgInt: '3',
        lgCategory: '4',
      },
    ]);
  });

  it('the 2008 VXSE53 取消 withdraws the detail report it follows; alone it lists nothing', async () => {
    const cancel = sample<EarthquakeDocument>('earthquake-information', 'vxse53_rjtd_20080614090634');
    await record(cancel, 'VXSE53', 502);
    assert.deepEqual((await list()).items, []);
    const before = earthquakeDoc('VXSE53', {
      eventId: '20080614084350',
      reportDateTime: '2008-06-14T08:51:00+09:00',
      serialNo: '1',
      earthquake: quakeA,
      maxInt: '6+',
    });
    await record(before, 'VXSE53', 501);
    assert.deepEqual((await list()).items, []);
    assert.equal(await earthquakeEvent(db, '20080614084350'), null);
  });

  it('a real VXSE53 delivered as JSON', async () => {
    const { document, id, type } = realWebSocket<EarthquakeDocument>('socket-vxse53-20260311184809-1');
    await recordEarthquakeReport(db, projected(document, type, 601, { id }));
    assert.deepEqual((await list()).items, [
      {
        id: 601,
        type: 'normal',
        eventId: '20260311184809',
        originTime: '2026-03-11T18:47:00+09:00',
        arrivalTime: '2026-03-11T18:48:00+09:00',
        hypocenter: eq(document).hypocenter,
        magnitude: { type: 'マグニチュード', value: '3.9', unit: 'Mj' },
        maxInt: '2',
      },
    ]);
  });

  it('out of order and twice: the same events', async () => {
    const docs: [EarthquakeDocument, string, number][] = [
      [flash, 'VXSE51', 701],
      [hypo, 'VXSE52', 702],
      [detail1, 'VXSE53', 703],
      [
        earthquakeDoc('VXSE53', {
          eventId: E,
          reportDateTime: '2026-01-01T10:20:00+09:00',
          serialNo: '2',
          cancel: true,
        }),
        'VXSE53',
        704,
      ],
      [sample('earthquake-information', 'vxse52_rjtd_20210213231144'), 'VXSE52', 705],
      [sample('earthquake-information', 'vxse51_rjtd_20210213230936'), 'VXSE51', 706],
      [sample('earthquake-information', 'vxse53_rjtd_20210213231302'), 'VXSE53', 707],
    ];
    const snapshot = async () => ({
      list: await list(),
      a: await earthquakeEvent(db, E),
      b: await earthquakeEvent(db, '20210213230800'),
    });
    for (const [doc, type, serial] of docs) await record(doc, type, serial);
    const inOrder = await snapshot();
    // The 取消 withdraws the detail report: the hypocentre report and the flash remain.
    assert.deepEqual(inOrder.a?.event, {
      id: 701,
      type: 'normal',
      eventId: E,
      originTime: '2026-01-01T09:59:50+09:00',
      arrivalTime: '2026-01-01T10:00:00+09:00',
      hypocenter: quakeA.hypocenter,
      magnitude: quakeA.magnitude,
      maxInt: '3',
    });
    assert.deepEqual(
      inOrder.list.items.map((i) => i.id),
      [705, 701],
    );

    await clearGdProjections(db);
    for (const [doc, type, serial] of [...docs].reverse()) await record(doc, type, serial);
    for (const [doc, type, serial] of docs) await record(doc, type, serial);
    assert.deepEqual(await snapshot(), inOrder);
  });

  describe('filters', () => {
    const event = (eventId: string, o: { code?: string; maxInt?: string; arrivalTime?: string }) =>
      o.code
        ? earthquakeDoc('VXSE53', {
            eventId,
            reportDateTime: '2026-02-01T10:05:00+09:00',
            serialNo: '1',
            earthquake: quake(
              o.code,
              '3.0',
              o.arrivalTime ?? '2026-02-01T10:00:00+09:00',
              o.arrivalTime ?? '2026-02-01T10:00:00+09:00',
            ),
            ...(o.maxInt ? { maxInt: o.maxInt } : {}),
          })
        : earthquakeDoc('VXSE51', {
            eventId,
            reportDateTime: '2026-02-01T10:02:00+09:00',
            targetDateTime: o.arrivalTime ?? '2026-02-01T10:00:00+09:00',
            maxInt: o.maxInt!,
          });
    const ids = async (f: Parameters<typeof list>[0]) => (await list(f)).items.map((i) => i.eventId);

    it('maxInt is a lower bound in the order 1 < … < 5- < 5+ < 6- < 6+ < 7; `5 ` reads as 5+', async () => {
      const classes = ['1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'];
      for (const [i, maxInt] of classes.entries())
        await record(event(`e${maxInt}`, { code: '100', maxInt }), 'VXSE53', 800 + i);
      await record(event('e-none', { code: '100' }), 'VXSE53', 820);
      assert.deepEqual(await ids({ maxInt: parseMaxIntFilter('5+') }), ['e7', 'e6+', 'e6-', 'e5+']);
      assert.deepEqual(await ids({ maxInt: parseMaxIntFilter('5 ') }), ['e7', 'e6+', 'e6-', 'e5+']);
      assert.deepEqual(await ids({ maxInt: parseMaxIntFilter('5-') }), ['e7', 'e6+', 'e6-', 'e5+', 'e5-']);
      assert.deepEqual(await ids({ maxInt: parseMaxIntFilter('6 ') }), ['e7', 'e6+']);
      assert.deepEqual(await ids({ maxInt: '1' }), [
        'e7',
        'e6+',
        'e6-',
        'e5+',
        'e5-',
        'e4',
        'e3',
        'e2',
        'e1',
      ]);
      assert.equal((await list()).items.length, 10);
    });

    it('hypocenter matches the epicentre area code; an intensity flash has none', async () => {
      await record(event('a', { code: '100', maxInt: '3' }), 'VXSE53', 901);
      await record(event('b', { code: '200', maxInt: '3' }), 'VXSE53', 902);
      await record(event('c', { maxInt: '3' }), 'VXSE51', 903);
      await record(event('d', { code: '100', maxInt: '2' }), 'VXSE53', 904);
      assert.deepEqual(await ids({ hypocenter: '100' }), ['d', 'a']);
      assert.deepEqual(await ids({ hypocenter: '100', maxInt: '3' }), ['a']);
      assert.deepEqual(await ids({ hypocenter: '999' }), []);
    });

    it('date is the Japan date of arrivalTime, across the UTC midnight', async () => {
      await record(
        event('utc-13', { code: '100', arrivalTime: '2021-02-14T08:59:00+09:00' }),
        'VXSE53',
        1001,
      );
      await record(
        event('jst-14', { code: '100', arrivalTime: '2021-02-14T09:00:00+09:00' }),
        'VXSE53',
        1002,
      );
      await record(
        event('jst-13', { code: '100', arrivalTime: '2021-02-13T23:59:59+09:00' }),
        'VXSE53',
        1003,
      );
      await record(event('z', { code: '100', arrivalTime: '2021-02-13T15:30:00Z' }), 'VXSE53', 1004);
      await record(event('flash', { maxInt: '4', arrivalTime: '2021-02-14T00:10:00+09:00' }), 'VXSE51', 1005);
      assert.deepEqual(await ids({ date: '2021-02-14' }), ['flash', 'z', 'jst-14', 'utc-13']);
      assert.deepEqual(await ids({ date: '2021-02-13' }), ['jst-13']);
      assert.deepEqual(await ids({ date: '2021-02-15' }), []);
    });
  });

  describe('cursors', () => {
    const eventDoc = (n: number) =>
      earthquakeDoc('VXSE51', {
        eventId: `2026030100000${n}`,
        reportDateTime: `2026-03-01T00:0${n}:00+09:00`,
        maxInt: n % 2 ? '3' : '4',
      });

    it('older pages by nextToken lose and repeat nothing', async () => {
      for (let n = 1; n <= 7; n++) await record(eventDoc(n), 'VXSE51', 1100 + n);
      const first = await list({ limit: 3 });
      assert.deepEqual(
        first.items.map((i) => i.id),
        [1107, 1106, 1105],
      );
      assert.equal(first.nextPooling, 1107);
      const second = await list({ limit: 3, cursor: { direction: 'older', position: first.nextToken! } });
      assert.deepEqual(
        second.items.map((i) => i.id),
        [1104, 1103, 1102],
      );
      const third = await list({ limit: 3, cursor: { direction: 'older', position: second.nextToken! } });
      assert.deepEqual(
        third.items.map((i) => i.id),
        [1101],
      );
      assert.equal(third.nextToken, undefined);
      const filtered = await list({ limit: 2, maxInt: '4' });
      assert.deepEqual(
        filtered.items.map((i) => i.id),
        [1106, 1104],
      );
      const rest = await list({
        limit: 2,
        maxInt: '4',
        cursor: { direction: 'older', position: filtered.nextToken! },
      });
      assert.deepEqual(
        rest.items.map((i) => i.id),
        [1102],
      );
      assert.equal(rest.nextToken, undefined);
    });

    it('nextPooling brings new events and events changed by a later report, earliest change first', async () => {
      for (let n = 1; n <= 3; n++) await record(eventDoc(n), 'VXSE51', 1200 + n);
      const first = await list({ limit: 3 });
      assert.equal(first.nextPooling, 1203);
      const idle = await list({ limit: 3, cursor: { direction: 'newer', position: first.nextPooling } });
      assert.deepEqual(idle, { items: [], nextPooling: 1203 });

      await record(eventDoc(4), 'VXSE51', 1204);
      // A hypocentre report for the oldest event changes it.
      const update = earthquakeDoc('VXSE52', {
        eventId: '20260301000001',
        reportDateTime: '2026-03-01T00:05:00+09:00',
        earthquake: quakeA,
      });
      await record(update, 'VXSE52', 1205);

      const both = await list({ limit: 3, cursor: { direction: 'newer', position: 1203 } });
      assert.deepEqual(
        both.items.map((i) => [i.id, i.eventId, i.hypocenter?.code ?? null]),
        [
          [1201, '20260301000001', '100'],
          [1204, '20260301000004', null],
        ],
      );
      assert.equal(both.nextPooling, 1205);
      assert.equal(both.nextToken, undefined);

      const one = await list({ limit: 1, cursor: { direction: 'newer', position: 1203 } });
      assert.deepEqual(
        one.items.map((i) => i.id),
        [1204],
      );
      assert.equal(one.nextPooling, 1204);
      const next = await list({ limit: 1, cursor: { direction: 'newer', position: one.nextPooling } });
      assert.deepEqual(
        next.items.map((i) => i.id),
        [1201],
      );
      assert.equal(next.nextPooling, 1205);
      // A polling filter applies to the changed events too.
      const filtered = await list({ maxInt: '4', cursor: { direction: 'newer', position: 1203 } });
      assert.deepEqual(
        filtered.items.map((i) => i.id),
        [1204],
      );
      assert.equal(filtered.nextPooling, 1205);
    });
  });
});
