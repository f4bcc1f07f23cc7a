/**
 * GET /v2/gd/earthquake and /v2/gd/earthquake/:eventId end to end (docs/gd.md): fixture chains
 * ingested through the real pipeline, every summary and telegram field written from the XML.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import {
  CHAIN_2008,
  DISTANT_2023,
  fileBytes,
  hypocenter,
  ingestNamed,
  magnitude,
  OFFICIAL_2010,
  OFFICIAL_2011,
  REAL_2021,
  TRAINING,
} from './gd-support.ts';
import { getJson } from '../support/data-api.ts';

const hypo2021 = (name: string, code: string, lat: string, lon: string, depthKm: string) =>
  hypocenter({
    name,
    code,
    lat,
    lon,
    height: `-${depthKm}000`,
    depth: { value: depthKm },
    datum: '日本測地系',
  });

/** Every event the fixtures above (without the 2008 chain) give, keyed by EventID, without `id`. */
const EXPECTED: Record<string, object> = {
  // A single VXSE53: 大阪府南部, ごく浅い (+0), M1.5, 震度1.
  '20210216160714': {
    type: 'normal',
    eventId: '20210216160714',
    originTime: '2021-02-16T16:07:00+09:00',
    arrivalTime: '2021-02-16T16:07:00+09:00',
    hypocenter: hypocenter({
      name: '大阪府南部',
      code: '521',
      lat: '34.3',
      lon: '135.2',
      height: '0',
      depth: { value: '0', condition: 'ごく浅い' },
      datum: '日本測地系',
    }),
    magnitude: magnitude('1.5'),
    maxInt: '1',
  },
  '20210217230627': {
    type: 'normal',
    eventId: '20210217230627',
    originTime: '2021-02-17T23:06:00+09:00',
    arrivalTime: '2021-02-17T23:06:00+09:00',
    hypocenter: hypo2021('福島県沖', '289', '37.6', '141.6', '50'),
    magnitude: magnitude('4.5'),
    maxInt: '3',
  },
  '20210218014649': {
    type: 'normal',
    eventId: '20210218014649',
    originTime: '2021-02-18T01:46:00+09:00',
    arrivalTime: '2021-02-18T01:46:00+09:00',
    hypocenter: hypo2021('沖縄本島近海', '850', '27.4', '128.6', '40'),
    magnitude: magnitude('4.0'),
    maxInt: '3',
  },
  '20210218035836': {
    type: 'normal',
    eventId: '20210218035836',
    originTime: '2021-02-18T03:58:00+09:00',
    arrivalTime: '2021-02-18T03:58:00+09:00',
    hypocenter: hypo2021('愛知県西部', '451', '35.1', '137.3', '40'),
    magnitude: magnitude('4.2'),
    maxInt: '3',
  },
  '20210219100719': {
    type: 'normal',
    eventId: '20210219100719',
    originTime: '2021-02-19T10:07:00+09:00',
    arrivalTime: '2021-02-19T10:07:00+09:00',
    hypocenter: hypo2021('福島県沖', '289', '37.7', '141.6', '50'),
    magnitude: magnitude('4.7'),
    maxInt: '3',
  },
  '20210220222343': {
    type: 'normal',
    eventId: '20210220222343',
    originTime: '2021-02-20T22:23:00+09:00',
    arrivalTime: '2021-02-20T22:23:00+09:00',
    hypocenter: hypo2021('北海道東方沖', '188', '43.3', '146.9', '50'),
    magnitude: magnitude('5.0'),
    maxInt: '3',
  },
  // Only the first 震度速報 (震度4, TargetDateTime 16:12): no origin time, hypocentre or magnitude.
  '20100125161221': {
    type: 'normal',
    eventId: '20100125161221',
    arrivalTime: '2010-01-25T16:12:00+09:00',
    maxInt: '4',
  },
  // 震度速報, 震源, 震源・震度 serial 1 → 2: 大隅半島東方沖, no datum (WGS), M5.3, 震度4.
  '20100125161517': {
    type: 'normal',
    eventId: '20100125161517',
    originTime: '2010-01-25T16:15:00+09:00',
    arrivalTime: '2010-01-25T16:15:00+09:00',
    hypocenter: hypocenter({
      name: '大隅半島東方沖',
      code: '820',
      lat: '30.9',
      lon: '131.1',
      height: '-50000',
      depth: { value: '50' },
    }),
    magnitude: magnitude('5.3'),
    maxInt: '4',
  },
  // 震度速報 6+ then 震源・震度 7; the tsunami telegrams of the same EventID change nothing.
  '20110311144640': {
    type: 'normal',
    eventId: '20110311144640',
    originTime: '2011-03-11T14:46:00+09:00',
    arrivalTime: '2011-03-11T14:46:00+09:00',
    hypocenter: hypocenter({
      name: '三陸沖',
      code: '288',
      lat: '38.0',
      lon: '142.9',
      height: '-10000',
      depth: { value: '10' },
      auxiliary: {
        text: '牡鹿半島の東南東１３０ｋｍ付近',
        code: '202',
        name: '牡鹿半島',
        direction: '東南東',
        distance: '130',
      },
    }),
    magnitude: magnitude(null, 'Ｍ８を超える巨大地震'),
    maxInt: '7',
  },
  // 遠地地震に関する情報 serial 1–5: カムチャツカ半島付近, depth and magnitude unknown, no intensity.
  '20230410221000': {
    type: 'distant',
    eventId: '20230410221000',
    originTime: '2023-04-10T22:10:00+09:00',
    arrivalTime: '2023-04-10T22:10:00+09:00',
    hypocenter: hypocenter({
      name: 'カムチャツカ半島付近',
      code: '941',
      lat: '56.7',
      lon: '161.4',
      height: null,
      depth: { value: null, condition: '不明' },
      detailed: { code: '1218', name: 'ロシア、カムチャツカ半島東岸' },
    }),
    magnitude: magnitude(null, 'Ｍ不明'),
    maxInt: null,
  },
};

/** The files of each event, in ingest order (the VTSE telegrams have no earthquake conversion). */
const FILES_OF: Record<string, string[]> = {
  '20210216160714': REAL_2021.slice(0, 1),
  '20210217230627': REAL_2021.slice(1, 4),
  '20210218014649': REAL_2021.slice(4, 7),
  '20210218035836': REAL_2021.slice(7, 10),
  '20210219100719': REAL_2021.slice(10, 13),
  '20210220222343': REAL_2021.slice(13, 16),
  '20100125161221': OFFICIAL_2010.slice(0, 1),
  '20100125161517': OFFICIAL_2010.slice(1),
  '20110311144640': ['32-39_11_01_120615_VXSE51.xml', '32-39_11_05_240613_VXSE53.xml'],
  '20230410221000': DISTANT_2023,
};

/** The alphabetic office codes of the editorial offices in these fixtures. */
const AUTHORS: Record<string, string> = { 気象庁本庁: 'RJTD', 大阪管区気象台: 'JPOS' };

/** XML Control/Head facts of each file as written in it, for the detail's `xmlReport`. */
function controlOf(name: string) {
  const xml = fileBytes(name).toString('utf8');
  const pick = (re: RegExp) => re.exec(xml)?.[1];
  const head = xml.slice(xml.indexOf('<Head'));
  return {
    controlTitle: pick(/<Control>\s*<Title>([^<]*)</),
    dateTime: pick(/<Control>[\s\S]*?<DateTime>([^<]*)</),
    headTitle: pick(/<Head[^>]*>\s*<Title>([^<]*)</),
    eventId: /<EventID>([^<]*)</.exec(head)?.[1],
    infoType: /<InfoType>([^<]*)</.exec(head)?.[1],
    serial: /<Serial>([^<]*)</.exec(head)?.[1] || null,
    reportDateTime: /<ReportDateTime>([^<]*)</.exec(head)?.[1],
    type: /_(VXSE\d\d)[._]/.exec(name)![1]!,
    author: AUTHORS[pick(/<EditorialOffice>([^<]*)</)!]!,
  };
}

describe('GET /v2/gd/earthquake and /v2/gd/earthquake/:eventId from fixture chains', () => {
  let server: TestServer;
  let key: string;
  let serials: Map<string, number>;
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, [
      'gd.earthquake',
      'telegram.list',
      'telegram.data',
      'telegram.get.earthquake',
    ]);
    serials = await ingestNamed(server, [
      ...REAL_2021,
      ...OFFICIAL_2010,
      ...TRAINING,
      ...OFFICIAL_2011,
      ...DISTANT_2023,
    ]);
  });
  after(() => server.close());

  /** An event's id: the serial of its first JSON telegram. */
  const idOf = (eventId: string) => serials.get(FILES_OF[eventId]![0]!)!;

  it('lists exactly the events, newest first by first appearance; training telegrams never enter', async () => {
    const res = await get('/v2/gd/earthquake?limit=100');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    const expected = Object.entries(EXPECTED)
      .map(([eventId, summary]) => ({ id: idOf(eventId), ...summary }))
      .sort((a, b) => b.id - a.id);
    assert.deepEqual(res.body.items, expected);
    assert.equal(res.body.nextToken, undefined);
    assert.equal(typeof res.body.nextPooling, 'string');
    assert.equal(res.body.nextPoolingInterval, 2000);
    const training = await get('/v2/gd/earthquake/20091001134500');
    assert.equal(training.status, 404);
  });

  for (const eventId of Object.keys(EXPECTED))
    it(`detail of ${eventId}: the summary and its JSON telegrams, field by field`, async () => {
      const res = await get(`/v2/gd/earthquake/${eventId}`);
      assert.equal(res.status, 200);
      const { telegrams, ...event } = res.body.event;
      assert.deepEqual(event, { id: idOf(eventId), ...EXPECTED[eventId] });

      const names = FILES_OF[eventId]!;
      assert.deepEqual(
        telegrams.map((t: { serial: number }) => t.serial),
        names.map((n) => serials.get(n)),
      );
      // The JSON conversions as the telegram list shows them, and the source XML telegrams.
      const jsonList = (await get('/v2/telegram?formatMode=json&limit=100&xmlReport=true')).body.items;
      const rawList = (await get('/v2/telegram?limit=100&test=including')).body.items;
      for (const [i, name] of names.entries()) {
        const t = telegrams[i];
        const facts = controlOf(name);
        const xmlItem = rawList.find((x: { serial: number }) => x.serial === t.serial - 1);
        assert.ok(xmlItem, `${name}: its XML telegram is listed`);
        const xmlBody = await fetch(`${xmlItem.url}?key=${key}`);
        assert.deepEqual(Buffer.from(await xmlBody.arrayBuffer()), fileBytes(name), name);

        assert.deepEqual(Object.keys(t).sort(), [
          'classification',
          'format',
          'head',
          'id',
          'originalId',
          'receivedTime',
          'schema',
          'serial',
          'url',
          'xmlReport',
        ]);
        assert.match(t.id, /^[0-9a-f]{96}$/);
        assert.notEqual(t.id, xmlItem.id);
        assert.equal(t.originalId, xmlItem.id);
        assert.equal(t.classification, 'telegram.earthquake');
        assert.deepEqual(t.head, {
          type: facts.type,
          author: facts.author,
          // ReportDateTime in UTC, truncated to the minute (no transport header here).
          time: new Date(Date.parse(facts.reportDateTime!))
            .toISOString()
            .replace(/:\d\d\.\d{3}Z$/, ':00.000Z'),
          designation: null,
          test: false,
        });
        assert.equal(t.receivedTime, xmlItem.receivedTime);
        assert.equal(t.xmlReport.control.title, facts.controlTitle);
        assert.equal(t.xmlReport.control.status, '通常');
        assert.equal(t.xmlReport.control.dateTime, facts.dateTime);
        assert.equal(t.xmlReport.head.title, facts.headTitle);
        assert.equal(t.xmlReport.head.eventId, eventId);
        assert.equal(t.xmlReport.head.infoType, facts.infoType);
        assert.equal(t.xmlReport.head.serial, facts.serial);
        assert.equal(t.xmlReport.head.reportDateTime, facts.reportDateTime);
        assert.deepEqual(t.schema, { type: 'earthquake-information', version: '1.1.0' });
        assert.equal(t.format, 'json');
        assert.equal(t.url, `${server.url}/v1/${t.id}`);
        const listed = jsonList.find((x: { serial: number }) => x.serial === t.serial);
        // The list item carries no originalId (service.md "Telegram item, list v2"), and a JSON
        // item no xmlReport (only an XML one does, when asked).
        const { originalId: _, xmlReport: __, ...withoutOriginal } = t;
        assert.deepEqual(listed, withoutOriginal, `${name}: the conversion's list item`);

        const body = await fetch(`${t.url}?key=${key}`);
        assert.equal(body.status, 200);
        assert.match(body.headers.get('content-type')!, /^application\/json/);
        const document = (await body.json()) as Record<string, unknown>;
        assert.equal(document._originalId, xmlItem.id);
        assert.deepEqual(document._schema, { type: 'earthquake-information', version: '1.1.0' });
        assert.equal(document.type, facts.controlTitle);
        assert.equal(document.title, facts.headTitle);
        assert.equal(document.eventId, eventId);
      }
    });

  it('the 2008 chain: each 取消 withdraws its own type; with nothing valid left the event is gone', async () => {
    const eventId = '20080614084350';
    const hypo = hypocenter({
      name: '岩手県内陸南部',
      code: '213',
      lat: '39.0',
      lon: '140.9',
      height: '-10000',
      depth: { value: '10' },
    });
    const hypo61 = {
      ...hypo,
      coordinate: {
        latitude: { text: "39˚01.7'N", value: (39 + 1.7 / 60).toFixed(4) },
        longitude: { text: "140˚52.8'E", value: (140 + 52.8 / 60).toFixed(4) },
        height: { type: '高さ', value: '-8000', unit: 'm' },
      },
      depth: { type: '深さ', unit: 'km', value: '8' },
    };
    const times = { originTime: '2008-06-14T08:43:00+09:00', arrivalTime: '2008-06-14T08:43:00+09:00' };
    const m70 = magnitude('7.0');
    // After each telegram of CHAIN_2008, read from the XML: the summary, or null (not listed).
    const states = [
      // VXSE52 発表: hypocentre, M7.0, no intensity yet.
      { ...times, hypocenter: hypo, magnitude: m70, maxInt: null },
      // VXSE53 serial 1: 震度6強.
      { ...times, hypocenter: hypo, magnitude: m70, maxInt: '6+' },
      // VXSE52 取消: the VXSE53 still gives everything.
      { ...times, hypocenter: hypo, magnitude: m70, maxInt: '6+' },
      // VXSE53 取消: nothing valid left.
      null,
      // VXSE61 発表 (M7.2): hypocentre (its 度分 coordinate, +3901.7+14052.8-8000/), magnitude and
      // times from it alone, no intensity.
      { ...times, hypocenter: hypo61, magnitude: magnitude('7.2'), maxInt: null },
      // VXSE61 取消.
      null,
    ];
    let first: number | undefined;
    for (const [i, name] of CHAIN_2008.entries()) {
      const serial = (await ingestNamed(server, [name])).get(name)!;
      first ??= serial;
      const state = states[i];
      const detail = await get(`/v2/gd/earthquake/${eventId}`);
      const listed = (await get('/v2/gd/earthquake?limit=100')).body.items.filter(
        (e: { eventId: string }) => e.eventId === eventId,
      );
      if (state === null) {
        assert.equal(detail.status, 404, `after ${name}`);
        assert.deepEqual(detail.body.error, { message: 'Not found.', code: 404 });
        assert.deepEqual(listed, [], `after ${name}`);
      } else {
        const summary = { id: first, type: 'normal', eventId, ...state };
        assert.deepEqual(listed, [summary], `after ${name}`);
        const { telegrams, ...event } = detail.body.event;
        assert.deepEqual(event, summary, `after ${name}`);
        // Every JSON telegram of the event so far, the 取消 ones included.
        assert.equal(telegrams.length, i + 1);
        assert.deepEqual(
          telegrams.map((t: { head: { type: string } }) => t.head.type),
          CHAIN_2008.slice(0, i + 1).map((n) => /VXSE\d\d/.exec(n)![0]),
        );
      }
    }
  });
});
