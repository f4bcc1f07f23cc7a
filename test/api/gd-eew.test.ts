/**
 * GET /v2/gd/eew and /v2/gd/eew/:eventId end to end (docs/gd.md "Early warnings"): the official
 * sequence of EventID 20240417231454 (VXSE45, VXSE44, VXSE43 and their 取消), values from the XML.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ingestNamed } from './gd-support.ts';
import { getJson } from '../support/data-api.ts';

const EVENT = '20240417231454';
const VXSE45 = [1, 2, 3, 4, 5, 10, 20, 30, 32].map(
  (n) => `77_01_${String(n).padStart(2, '0')}_240613_VXSE45.xml`,
);
const VXSE44 = [1, 2, 3, 10].map((n) => `36_01_${String(n).padStart(2, '0')}_240613_VXSE44.xml`);
const VXSE43 = ['37_01_01_240613_VXSE43.xml', '37_01_02_240613_VXSE43.xml'];
const CANCEL_43 = '37_01_03_240613_VXSE43.xml';
const CANCEL_44 = '36_01_33_240613_VXSE44.xml';
const CANCEL_45 = '77_01_33_240613_VXSE45.xml';
/** 試験 (緊急地震速報配信テスト) of EventID 20090811050000. */
const TEST_VXSE42 = '54_01_01_100514_VXSE42.xml';
/** 2011-03-11 (older revision): VXSE43 発表/取消 serial 5, VXSE45 発表/取消 serial 23. */
const EVENT_2011 = [
  '37_04_01_110311_VXSE43.xml',
  '77_01_01_110311_VXSE45.xml',
  '37_04_02_110311_VXSE43.xml',
  '77_01_02_110311_VXSE45.xml',
];

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
/** Japan-time `YYYY-MM-DDThh:mm:ss` of an instant (the `datetime` query's form). */
const jst = (ms: number) => new Date(ms + 9 * 3600_000).toISOString().slice(0, 19);

describe('GET /v2/gd/eew and /v2/gd/eew/:eventId', () => {
  let server: TestServer;
  let key: string;
  const clock = new ManualClock(T0);
  const serials = new Map<string, number>();
  const received = new Map<string, number>();
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);

  /** Ingests each file ten seconds after the previous one. */
  async function ingest(names: string[]) {
    for (const name of names) {
      clock.advance(10_000);
      received.set(name, clock.now());
      serials.set(name, (await ingestNamed(server, [name])).get(name)!);
    }
  }

  before(async () => {
    server = await startTestServer({ clock });
    const { account } = await server.createAccount({ contracts: ['eew.forecast', 'eew.warning'] });
    key = await server.createApiKey(account.id, ['gd.eew']);
    await ingest([TEST_VXSE42, ...VXSE45, ...VXSE44, ...VXSE43]);
  });
  after(() => server.close());

  it('without a final report or cancellation the list is empty; the event has every report', async () => {
    const list = await get('/v2/gd/eew');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items, []);
    assert.equal(list.body.nextToken, undefined);

    const res = await get(`/v2/gd/eew/${EVENT}`);
    assert.equal(res.status, 200);
    const order = [...VXSE45, ...VXSE44, ...VXSE43].reverse();
    assert.deepEqual(
      res.body.items.map((r: { id: number }) => r.id),
      order.map((n) => serials.get(n)),
      'newest reception first',
    );
    // Head/Serial of each report, as in the file names.
    assert.deepEqual(
      res.body.items.map((r: { serial: number }) => r.serial),
      [2, 1, 10, 3, 2, 1, 32, 30, 20, 10, 5, 4, 3, 2, 1],
    );
    for (const r of res.body.items) {
      assert.equal(r.eventId, EVENT);
      assert.equal(r.isLastInfo, false);
      assert.equal(r.isCanceled, false);
      assert.equal(r.telegrams.length, 1);
      const [t] = r.telegrams;
      assert.equal(t.serial, r.id);
      assert.equal(t.format, 'json');
      assert.deepEqual(t.schema, { type: 'eew-information', version: '1.0.0' });
      assert.match(t.originalId, /^[0-9a-f]{96}$/);
      assert.equal(t.head.test, false);
    }

    // VXSE45 serial 32 (77_01_32): ReportDateTime 23:16:58, 豊後水道 (681, 短縮 9798), +33.2+132.4-50000/,
    // M6.6, accuracy ranks 4/9, 4, 5 and 5 calculations, 予測最大震度 6-〜6-, 長周期 2〜2, warning issued.
    const s32 = res.body.items.find((r: { id: number }) => r.id === serials.get(VXSE45[8]!));
    assert.equal(s32.telegrams[0].head.type, 'VXSE45');
    assert.equal(s32.dateTime, '2024-04-17T23:16:58+09:00');
    assert.equal(s32.isWarning, true);
    assert.equal(s32.earthquake.originTime, '2024-04-17T23:14:47+09:00');
    assert.equal(s32.earthquake.arrivalTime, '2024-04-17T23:14:54+09:00');
    const h = s32.earthquake.hypocenter;
    assert.equal(h.name, '豊後水道');
    assert.equal(h.code, '681');
    assert.deepEqual(h.reduce, { code: '9798', name: '豊後水道' });
    assert.deepEqual(h.coordinate, {
      latitude: { text: '33.2˚N', value: '33.2000' },
      longitude: { text: '132.4˚E', value: '132.4000' },
      height: { type: '高さ', value: '-50000', unit: 'm' },
    });
    assert.deepEqual(h.depth, { type: '深さ', unit: 'km', value: '50' });
    assert.deepEqual(h.accuracy, {
      epicenters: ['4', '9'],
      depth: '4',
      magnitudeCalculation: '5',
      numberOfMagnitudeCalculation: '5',
    });
    assert.deepEqual(s32.earthquake.magnitude, { type: 'マグニチュード', unit: 'Mj', value: '6.6' });
    assert.deepEqual(s32.intensity.forecastMaxInt, { from: '6-', to: '6-' });
    assert.deepEqual(s32.intensity.forecastMaxLgInt, { from: '2', to: '2' });

    // VXSE44 serial 10 (36_01_10): 23:15:03, depth 40 km, M6.5, 5+〜5+, no long-period forecast.
    const s10 = res.body.items.find((r: { id: number }) => r.id === serials.get(VXSE44[3]!));
    assert.equal(s10.dateTime, '2024-04-17T23:15:03+09:00');
    assert.deepEqual(s10.earthquake.hypocenter.depth, { type: '深さ', unit: 'km', value: '40' });
    assert.equal(s10.earthquake.magnitude.value, '6.5');
    assert.deepEqual(s10.intensity.forecastMaxInt, { from: '5+', to: '5+' });
    assert.equal(s10.intensity.forecastMaxLgInt, undefined);

    // A 試験 telegram never enters.
    assert.equal((await get('/v2/gd/eew/20090811050000')).status, 404);
  });

  it('each cancellation becomes the final record: the highest serial, VXSE45 before VXSE44 before VXSE43', async () => {
    const cancelled = (name: string, serial: number, text: string) => ({
      id: serials.get(name),
      eventId: EVENT,
      serial,
      dateTime: '2024-04-17T23:17:00+09:00',
      isLastInfo: true,
      isCanceled: true,
      text,
    });
    await ingest([CANCEL_43]);
    assert.deepEqual((await get('/v2/gd/eew')).body.items, [
      cancelled(CANCEL_43, 2, '先ほどの、緊急地震速報（警報）を取り消します。'),
    ]);
    await ingest([CANCEL_44]);
    assert.deepEqual((await get('/v2/gd/eew')).body.items, [
      cancelled(CANCEL_44, 32, '先ほどの、緊急地震速報（予報）を取り消します。'),
    ]);
    await ingest([CANCEL_45]);
    const final = cancelled(CANCEL_45, 32, '先ほどの、緊急地震速報（地震動予報）を取り消します。');
    assert.deepEqual((await get('/v2/gd/eew')).body.items, [final]);

    const event = await get(`/v2/gd/eew/${EVENT}`);
    assert.equal(event.body.items.length, 18);
    const { telegrams, ...first } = event.body.items[0];
    assert.deepEqual(first, final);
    assert.equal(telegrams[0].head.type, 'VXSE45');
    assert.equal(telegrams[0].xmlReport.head.infoType, '取消');
  });

  it('datetime range on the final report’s reception time (end exclusive), limit and nextToken', async () => {
    await ingest(EVENT_2011);
    const all = (await get('/v2/gd/eew')).body.items;
    assert.deepEqual(
      all.map((r: { eventId: string; serial: number; isCanceled: boolean }) => [
        r.eventId,
        r.serial,
        r.isCanceled,
      ]),
      [
        // VXSE45 取消 serial 23 over VXSE43 取消 serial 5.
        ['20110311144640', 23, true],
        [EVENT, 32, true],
      ],
    );
    assert.equal(all[0].id, serials.get(EVENT_2011[3]!));

    const at = received.get(CANCEL_45)!;
    const ids = async (range: string) =>
      (await get(`/v2/gd/eew?datetime=${encodeURIComponent(range)}`)).body.items.map(
        (r: { eventId: string }) => r.eventId,
      );
    assert.deepEqual(await ids(`${jst(at)}~${jst(at + 1000)}`), [EVENT]);
    assert.deepEqual(await ids(`~${jst(at)}`), [], 'end exclusive');
    assert.deepEqual(await ids(`${jst(at + 1000)}~`), ['20110311144640']);
    assert.deepEqual(await ids(`~${jst(at + 1000)}`), [EVENT]);
    assert.deepEqual(await ids(`${new Date(at).toISOString().slice(0, 19)}Z~`), ['20110311144640', EVENT]);

    const page1 = await get('/v2/gd/eew?limit=1');
    assert.deepEqual(page1.body.items, [all[0]]);
    assert.equal(typeof page1.body.nextToken, 'string');
    const page2 = await get(`/v2/gd/eew?limit=1&cursorToken=${page1.body.nextToken}`);
    assert.deepEqual(page2.body.items, [all[1]]);
    assert.equal(page2.body.nextToken, undefined);

    for (const bad of [
      'datetime=2024-13-01T00:00:00~',
      'datetime=x',
      'limit=0',
      'limit=101',
      'cursorToken=zz',
    ])
      assert.deepEqual((await get(`/v2/gd/eew?${bad}`)).body.error, {
        message: `Unexpected data of search query \`${bad.split('=')[0]}\`.`,
        code: 400,
      });
  });
});
