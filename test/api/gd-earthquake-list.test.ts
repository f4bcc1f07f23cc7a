/**
 * The earthquake list's filters, paging and polling, scopes and contracts (docs/gd.md "Earthquake
 * list"), and the merge's independence of reception order and repeats, all through HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import {
  CHAIN_2008,
  DISTANT_2023,
  ingestNamed,
  OFFICIAL_2010,
  OFFICIAL_2011,
  REAL_2021,
  TRAINING,
} from './gd-support.ts';
import { getJson } from '../support/data-api.ts';

/** The 2008 chain up to its VXSE53 serial 1 (震度6強), before any 取消. */
const IWATE_2008 = CHAIN_2008.slice(0, 2);
/** Held back to be ingested while polling: 震度速報, then 震源, of 20210220222343. */
const [LATE_FLASH, LATE_HYPOCENTER] = REAL_2021.slice(13, 15) as [string, string];

/** Of each event, from its XML: epicentre code, maximum intensity, Japan date of arrivalTime. */
const FACTS: Record<string, { code?: string; maxInt: string | null; date: string }> = {
  '20210216160714': { code: '521', maxInt: '1', date: '2021-02-16' },
  '20210217230627': { code: '289', maxInt: '3', date: '2021-02-17' },
  // 01:46 JST on the 18th is the 17th in UTC.
  '20210218014649': { code: '850', maxInt: '3', date: '2021-02-18' },
  '20210218035836': { code: '451', maxInt: '3', date: '2021-02-18' },
  '20210219100719': { code: '289', maxInt: '3', date: '2021-02-19' },
  '20100125161221': { maxInt: '4', date: '2010-01-25' },
  '20100125161517': { code: '820', maxInt: '4', date: '2010-01-25' },
  '20110311144640': { code: '288', maxInt: '7', date: '2011-03-11' },
  '20230410221000': { code: '941', maxInt: null, date: '2023-04-10' },
  '20080614084350': { code: '213', maxInt: '6+', date: '2008-06-14' },
};
const ORDER = ['1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'];

describe('GET /v2/gd/earthquake: filters, paging, polling, scopes and contracts', () => {
  let server: TestServer;
  let key: string;
  const get = (path: string, k = key) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${k}`);
  const eventIds = async (query: string) => {
    const res = await get(`/v2/gd/earthquake?limit=100&${query}`);
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return (res.body.items as { eventId: string }[]).map((e) => e.eventId).sort();
  };
  const expectedIds = (match: (f: (typeof FACTS)[string]) => boolean) =>
    Object.entries(FACTS)
      .filter(([, f]) => match(f))
      .map(([id]) => id)
      .sort();

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['gd.earthquake']);
    await ingestNamed(server, [
      ...REAL_2021.slice(0, 13),
      ...OFFICIAL_2010,
      ...TRAINING,
      ...OFFICIAL_2011,
      ...DISTANT_2023,
      ...IWATE_2008,
    ]);
  });
  after(() => server.close());

  it('hypocenter: the 3-digit epicentre area code', async () => {
    assert.deepEqual(await eventIds('hypocenter=289'), ['20210217230627', '20210219100719']);
    assert.deepEqual(await eventIds('hypocenter=941'), ['20230410221000']);
    assert.deepEqual(await eventIds('hypocenter=999'), []);
  });

  it('maxInt: a lower bound in the order 1 < 2 < … < 7; null never matches; + as %2B or a space', async () => {
    for (const [i, bound] of ORDER.entries()) {
      const want = expectedIds((f) => f.maxInt !== null && ORDER.indexOf(f.maxInt) >= i);
      assert.deepEqual(await eventIds(`maxInt=${encodeURIComponent(bound)}`), want, bound);
    }
    assert.deepEqual(await eventIds('maxInt=5%2B'), ['20080614084350', '20110311144640']);
    assert.deepEqual(await eventIds('maxInt=6+'), ['20080614084350', '20110311144640']);
    assert.deepEqual(await eventIds('maxInt=6-'), ['20080614084350', '20110311144640']);
    assert.deepEqual(await eventIds('maxInt=7'), ['20110311144640']);
  });

  it('date: the Japan date of arrivalTime; a time part is ignored; filters combine', async () => {
    assert.deepEqual(await eventIds('date=2021-02-18'), ['20210218014649', '20210218035836']);
    assert.deepEqual(await eventIds('date=2021-02-17'), ['20210217230627']);
    assert.deepEqual(await eventIds('date=2021-02-18T23:59:59'), ['20210218014649', '20210218035836']);
    assert.deepEqual(await eventIds(`date=${encodeURIComponent('2021-02-18 00:00')}`), [
      '20210218014649',
      '20210218035836',
    ]);
    assert.deepEqual(await eventIds('date=2010-01-25'), ['20100125161221', '20100125161517']);
    assert.deepEqual(await eventIds('date=2010-01-25&hypocenter=820'), ['20100125161517']);
    assert.deepEqual(await eventIds('date=2021-02-18&maxInt=4'), []);
    assert.deepEqual(await eventIds('date=1999-01-01'), []);
  });

  it('bad filter values are 400 naming the parameter', async () => {
    const bad: [string, string][] = [
      ['hypocenter', '28'],
      ['hypocenter', '2890'],
      ['hypocenter', 'abc'],
      ['maxInt', '0'],
      ['maxInt', '8'],
      ['maxInt', '5'],
      ['maxInt', '5x'],
      ['maxInt', '震度3'],
      ['date', '2021-02-30'],
      ['date', '2021/02/18'],
      ['date', '18-02-2021'],
      ['date', 'x'],
      ['limit', '0'],
      ['limit', '101'],
      ['limit', 'x'],
      ['cursorToken', 'not-a-token'],
    ];
    for (const [name, value] of bad) {
      const res = await get(`/v2/gd/earthquake?${name}=${encodeURIComponent(value)}`);
      assert.equal(res.status, 400, `${name}=${value}`);
      assert.deepEqual(res.body.error, {
        message: `Unexpected data of search query \`${name}\`.`,
        code: 400,
      });
      assert.equal(res.body.status, 'error');
    }
    // A cursor of another list is not a cursor of this one.
    const { account } = await server.createAccount({ contracts: ['eew.forecast'] });
    const eewKey = await server.createApiKey(account.id, ['gd.eew', 'telegram.list']);
    const others = [
      (await get('/v2/telegram?limit=1', eewKey)).body.nextPooling,
      (await get('/v2/gd/eew', eewKey)).body.nextToken,
    ].filter((t): t is string => typeof t === 'string');
    assert.ok(others.length > 0, 'a cursor of another list to try');
    for (const token of others)
      assert.equal((await get(`/v2/gd/earthquake?cursorToken=${token}`)).status, 400, token);
  });

  it('limit and nextToken page through every event once, newest first', async () => {
    const all = (await get('/v2/gd/earthquake?limit=100')).body.items as { id: number }[];
    assert.equal(all.length, Object.keys(FACTS).length);
    assert.equal((await get('/v2/gd/earthquake')).body.items.length, Math.min(20, all.length));
    const seen: { id: number }[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await get(`/v2/gd/earthquake?limit=3${token ? `&cursorToken=${token}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...res.body.items);
      token = res.body.nextToken;
      pages++;
    } while (token);
    assert.equal(pages, Math.ceil(all.length / 3));
    assert.deepEqual(seen, all);
    assert.deepEqual(
      all.map((e) => e.id),
      all.map((e) => e.id).sort((a, b) => b - a),
    );
    // Filters repeat with the token.
    const first = await get('/v2/gd/earthquake?limit=1&maxInt=4');
    const second = await get(`/v2/gd/earthquake?limit=10&maxInt=4&cursorToken=${first.body.nextToken}`);
    assert.deepEqual(
      [...first.body.items, ...second.body.items].map((e: { eventId: string }) => e.eventId).sort(),
      expectedIds((f) => f.maxInt !== null && ORDER.indexOf(f.maxInt) >= 3),
    );
    assert.equal(second.body.nextToken, undefined);
  });

  it('nextPooling returns a new event, then the same event once changed, and nothing else', async () => {
    const start = await get('/v2/gd/earthquake?limit=100');
    const idle = await get(`/v2/gd/earthquake?cursorToken=${start.body.nextPooling}`);
    assert.deepEqual(idle.body.items, []);
    assert.equal(idle.body.nextToken, undefined);
    assert.equal(typeof idle.body.nextPooling, 'string');

    // A new event: the 震度速報 alone (震度3, TargetDateTime 22:23).
    await ingestNamed(server, [LATE_FLASH]);
    const added = await get(`/v2/gd/earthquake?cursorToken=${idle.body.nextPooling}`);
    assert.deepEqual(
      added.body.items.map((e: object) => ({ ...e, id: undefined })),
      [
        {
          id: undefined,
          type: 'normal',
          eventId: '20210220222343',
          arrivalTime: '2021-02-20T22:23:00+09:00',
          maxInt: '3',
        },
      ],
    );
    const eventNumber = added.body.items[0].id;
    assert.ok(eventNumber > start.body.items[0].id, 'a new event is listed first');
    assert.deepEqual((await get(`/v2/gd/earthquake?cursorToken=${added.body.nextPooling}`)).body.items, []);

    // The same event changed by its 震源に関する情報 (北海道東方沖, M5.0): polled again, same id.
    await ingestNamed(server, [LATE_HYPOCENTER]);
    const changed = await get(`/v2/gd/earthquake?cursorToken=${added.body.nextPooling}`);
    assert.equal(changed.body.items.length, 1);
    const [event] = changed.body.items;
    assert.equal(event.id, eventNumber);
    assert.equal(event.originTime, '2021-02-20T22:23:00+09:00');
    assert.equal(event.hypocenter.name, '北海道東方沖');
    assert.equal(event.hypocenter.code, '188');
    assert.equal(event.magnitude.value, '5.0');
    assert.equal(event.maxInt, '3');
    // A filter applies to polling too.
    assert.deepEqual(
      (await get(`/v2/gd/earthquake?hypocenter=289&cursorToken=${added.body.nextPooling}`)).body.items,
      [],
    );
    // The first page still lists it first.
    assert.equal((await get('/v2/gd/earthquake?limit=1')).body.items[0].eventId, '20210220222343');
  });

  it('unknown events are the 404 envelope', async () => {
    for (const id of ['20000101000000', 'x', '0', '20210217230627x']) {
      const res = await get(`/v2/gd/earthquake/${id}`);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.status, 'error');
      assert.deepEqual(res.body.error, { message: 'Not found.', code: 404 });
      assert.match(res.body.responseId, /^[0-9a-f]{16}$/);
    }
  });

  it('scopes gd.earthquake and gd.eew are required: 403 without', async () => {
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
    });
    const other = await server.createApiKey(account.id, ['telegram.list', 'gd.eew']);
    for (const path of ['/v2/gd/earthquake', '/v2/gd/earthquake/20210217230627']) {
      const res = await get(path, other);
      assert.equal(res.status, 403, path);
      assert.deepEqual(res.body.error, { message: 'Insufficient scope for `gd.earthquake`.', code: 403 });
    }
    const eqOnly = await server.createApiKey(account.id, ['gd.earthquake']);
    for (const path of ['/v2/gd/eew', '/v2/gd/eew/20240417231454']) {
      const res = await get(path, eqOnly);
      assert.equal(res.status, 403, path);
      assert.deepEqual(res.body.error, { message: 'Insufficient scope for `gd.eew`.', code: 403 });
    }
    assert.equal((await getJson(server, '/v2/gd/earthquake')).status, 401);
  });

  it('contracts gate: without telegram.earthquake the list is empty and details are not found', async () => {
    const { account } = await server.createAccount({ contracts: ['telegram.weather'] });
    const k = await server.createApiKey(account.id, ['gd.earthquake', 'gd.eew']);
    const list = await get('/v2/gd/earthquake?limit=100', k);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items, []);
    assert.equal(typeof list.body.nextPooling, 'string');
    assert.equal((await get('/v2/gd/earthquake/20210217230627', k)).status, 404);
    assert.equal((await get('/v2/gd/eew/20240417231454', k)).status, 404);
    assert.deepEqual((await get('/v2/gd/eew', k)).body.items, []);
  });
});

describe('the same events whatever the reception order, and when telegrams come twice', () => {
  const FILES = [...REAL_2021, ...OFFICIAL_2010, ...OFFICIAL_2011, ...DISTANT_2023, ...CHAIN_2008];
  let inOrder: TestServer;
  let shuffled: TestServer;
  const keys = new Map<TestServer, string>();

  before(async () => {
    [inOrder, shuffled] = await Promise.all([startTestServer(), startTestServer()]);
    for (const s of [inOrder, shuffled]) {
      const { account } = await s.createAccount({ contracts: ['telegram.earthquake'] });
      keys.set(s, await s.createApiKey(account.id, ['gd.earthquake']));
    }
    await ingestNamed(inOrder, FILES);
    // Later serials first (each 取消 before what it cancels), then everything again.
    await ingestNamed(shuffled, [...FILES].reverse());
    await ingestNamed(shuffled, FILES);
  });
  after(() => Promise.all([inOrder.close(), shuffled.close()]));

  const read = async (s: TestServer, path: string) =>
    (await getJson(s, `${path}${path.includes('?') ? '&' : '?'}key=${keys.get(s)}`)).body;
  /** A summary without its id (the serial of the event's first telegram, which depends on arrival). */
  const withoutId = <T extends { id: number }>({ id: _, ...rest }: T) => rest;

  it('list and details are equal apart from reception serials', async () => {
    const a = (await read(inOrder, '/v2/gd/earthquake?limit=100')).items;
    const b = (await read(shuffled, '/v2/gd/earthquake?limit=100')).items;
    const byEvent = (items: { id: number; eventId: string }[]) =>
      items.map(withoutId).sort((x, y) => x.eventId.localeCompare(y.eventId));
    assert.equal(a.length, 10);
    assert.deepEqual(byEvent(b), byEvent(a));
    assert.ok(
      !a.some((e: { eventId: string }) => e.eventId === '20080614084350'),
      'the fully cancelled 2008 event is not listed',
    );
    assert.equal((await read(shuffled, '/v2/gd/earthquake/20080614084350')).error.code, 404);

    for (const { eventId } of a) {
      const da = (await read(inOrder, `/v2/gd/earthquake/${eventId}`)).event;
      const db = (await read(shuffled, `/v2/gd/earthquake/${eventId}`)).event;
      const { telegrams: ta, ...ea } = da;
      const { telegrams: tb, ...eb } = db;
      assert.deepEqual(withoutId(eb), withoutId(ea), eventId);
      const ids = (ts: { id: string; originalId: string }[]) =>
        ts.map((t) => `${t.id}/${t.originalId}`).sort();
      assert.deepEqual(ids(tb), ids(ta), `${eventId}: the same JSON telegrams, each once`);
    }
  });
});
