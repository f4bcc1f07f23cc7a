import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { FixtureEntry } from '../support/fixtures.ts';
import {
  accessToken,
  allFixtures,
  getJson,
  ingestFixtures,
  pollUntilEmpty,
  settle,
  V1_DATA_FIELDS,
  V1_ITEM_FIELDS,
} from '../support/data-api.ts';
import { classifications } from '../../src/classifications.ts';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;

interface Stored {
  serial: number;
  entry: FixtureEntry;
}

describe('GET /v2/telegram', () => {
  let server: TestServer;
  let clock: ManualClock;
  let stored: Stored[];
  let fullKey: string;
  let fullAccountId: number;
  let quakeKey: string;
  let noContractKey: string;
  let noScopeKey: string;

  before(async () => {
    clock = new ManualClock(T0);
    server = await startTestServer({ clock, listen: false });
    const full = await server.createAccount({
      // Every classification a list can hold, and the early warnings it must never list.
      contracts: classifications.filter((c) => c !== 'eew.realtime'),
    });
    fullKey = await server.createApiKey(full.account.id, ['telegram.list']);
    fullAccountId = full.account.id;
    const quake = await server.createAccount({ contracts: ['telegram.earthquake'] });
    quakeKey = await server.createApiKey(quake.account.id, ['telegram.list']);
    const none = await server.createAccount();
    noContractKey = await server.createApiKey(none.account.id, ['telegram.list']);
    noScopeKey = await server.createApiKey(full.account.id, ['contract.list']);
    // One telegram per minute, so reception times are distinct and predictable.
    stored = [];
    for (const entry of allFixtures()) {
      const [serial] = await ingestFixtures(server, [entry]);
      stored.push({ serial: serial!, entry });
      clock.advance(MINUTE);
    }
  });
  after(() => server.close());

  const list = (query: string, key = fullKey) =>
    getJson(server, `/v2/telegram?key=${key}${query ? '&' + query : ''}`);
  const expected = (filter: (e: FixtureEntry) => boolean) =>
    stored
      .filter((s) => !s.entry.classification.startsWith('eew.') && filter(s.entry))
      .map((s) => s.serial)
      .reverse();
  const notTest = (e: FixtureEntry) => e.status === '通常';

  async function pageAll(query: string, key = fullKey): Promise<number[]> {
    const seen: number[] = [];
    let token: string | undefined;
    for (let guard = 0; guard < 1000; guard++) {
      const r = await list(query + (token ? `&cursorToken=${token}` : ''), key);
      assert.equal(r.status, 200);
      seen.push(...r.body.items.map((i: { serial: number }) => i.serial));
      token = r.body.nextToken;
      if (!token) return seen;
    }
    assert.fail('paging did not end');
  }

  it('defaults: 20 newest, early warnings and test telegrams excluded, the documented item shape', async () => {
    const r = await list('');
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'ok');
    assert.match(r.body.responseId, /^[0-9a-f]{16}$/);
    assert.equal(r.body.responseTime, new Date(clock.now()).toISOString());
    assert.deepEqual(
      r.body.items.map((i: { serial: number }) => i.serial),
      expected(notTest).slice(0, 20),
    );
    const item = r.body.items[0];
    assert.deepEqual(Object.keys(item).sort(), [
      'classification',
      'format',
      'head',
      'id',
      'receivedTime',
      'serial',
      'url',
    ]);
    assert.equal(item.url, `${server.url}/v1/${item.id}`);
    assert.match(item.id, /^[0-9a-f]{96}$/);
    assert.deepEqual(Object.keys(item.head).sort(), ['author', 'designation', 'test', 'time', 'type', 'xml']);
    assert.equal(typeof r.body.nextToken, 'string');
    assert.equal(typeof r.body.nextPooling, 'string');
    assert.equal(r.body.nextPoolingInterval, 2000);
  });

  it('paging with nextToken reaches the end, losing and repeating nothing', async () => {
    assert.deepEqual(await pageAll('limit=100'), expected(notTest));
    assert.deepEqual(
      await pageAll('limit=7', quakeKey),
      expected((e) => notTest(e) && e.classification === 'telegram.earthquake'),
    );
  });

  it('lists every contracted classification whatever the key’s other scopes; nothing without contracts', async () => {
    const quake = await list('limit=100', quakeKey);
    assert.ok(quake.body.items.length > 0);
    assert.ok(
      quake.body.items.every((i: { classification: string }) => i.classification === 'telegram.earthquake'),
    );
    const none = await list('', noContractKey);
    assert.deepEqual(none.body.items, []);
    assert.equal(none.body.nextToken, undefined);
    assert.equal(typeof none.body.nextPooling, 'string');
  });

  it('type: one code is a prefix, several are exact (at most five), SDK-style type[] too', async () => {
    assert.deepEqual(
      await pageAll('type=VXSE5&limit=100'),
      expected((e) => notTest(e) && e.type.startsWith('VXSE5')),
    );
    assert.deepEqual(
      await pageAll('type=VXSE51,VTSE41&limit=100'),
      expected((e) => notTest(e) && ['VXSE51', 'VTSE41'].includes(e.type)),
    );
    assert.deepEqual(
      await pageAll('type[]=VXSE51&type[]=VTSE41&limit=100'),
      expected((e) => notTest(e) && ['VXSE51', 'VTSE41'].includes(e.type)),
    );
    // Codes are case-insensitive, except JMA's `ii` series placeholder.
    assert.deepEqual(
      await pageAll('type=vxkoii&limit=100'),
      expected((e) => notTest(e) && e.type === 'VXKOii'),
    );
    assert.ok(expected((e) => e.type === 'VXKOii').length > 0);
    // A code that is a prefix of another is exact in a list.
    const exact = await list('type=VXSE5,VTSE41&limit=100');
    assert.ok(exact.body.items.every((i: { head: { type: string } }) => i.head.type === 'VTSE41'));
    for (const bad of ['type=A,B,C,D,E,F', 'type=VX%20SE', 'type=VXSE53,', 'type=VXSE53&type=VXSE52']) {
      const r = await list(bad);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.message, 'Unexpected data of search query `type`.');
      assert.equal(r.body.error.code, 400);
    }
  });

  it('xmlReport=true adds Control and Head of XML telegrams', async () => {
    const r = await list('xmlReport=true&limit=100');
    const bySerial = new Map(stored.map((s) => [s.serial, s.entry]));
    for (const item of r.body.items) {
      const entry = bySerial.get(item.serial)!;
      assert.equal(item.xmlReport.control.title, entry.controlTitle);
      assert.equal(item.xmlReport.head.infoType, entry.infoType);
    }
    assert.equal((await list('xmlReport=false')).body.items[0].xmlReport, undefined);
    assert.equal(
      (await list('xmlReport=yes')).body.error.message,
      'Unexpected data of search query `xmlReport`.',
    );
  });

  it('test: no (default), including, only', async () => {
    assert.deepEqual(
      await pageAll('test=including&limit=100'),
      expected(() => true),
    );
    const only = await pageAll('test=only&limit=100');
    assert.deepEqual(
      only,
      expected((e) => !notTest(e)),
    );
    assert.ok(only.length > 0);
    assert.equal((await list('test=true')).body.error.message, 'Unexpected data of search query `test`.');
  });

  it('formatMode: json lists A/N, binary and the JSON conversions, never XML; other values are 400', async () => {
    const r = await list('formatMode=json');
    assert.equal(r.status, 200);
    assert.equal(r.body.items.length, 20);
    for (const i of r.body.items as { format: string; schema?: object }[]) {
      assert.ok(['a/n', 'binary', 'json'].includes(i.format), `format ${i.format}`);
      assert.equal('schema' in i, i.format === 'json', 'schema exactly on conversions');
    }
    const formats = new Set(r.body.items.map((i: { format: string }) => i.format));
    // The newest fixtures (older volcano and river-flood samples) have conversions.
    assert.equal(formats.has('json'), true, 'no JSON conversion listed');
    assert.equal((await list('formatMode=raw')).body.items.length, 20);
    const bad = await list('formatMode=xml');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.message, 'You have entered a string that is not defined in `formatMode`.');
  });

  it('datetime: a reception-time range in Japan time, end exclusive, either side optional', async () => {
    // stored[i] was received at T0 + i minutes; T0 is 09:00 Japan time on 2026-03-01.
    const jst = (minutes: number) => {
      const d = new Date(T0 + minutes * MINUTE + 9 * 3600_000);
      return d.toISOString().slice(0, 19);
    };
    const inRange = (from: number, to: number) =>
      stored
        .filter(
          (s, i) => i >= from && i < to && notTest(s.entry) && !s.entry.classification.startsWith('eew.'),
        )
        .map((s) => s.serial)
        .reverse();
    assert.deepEqual(await pageAll(`datetime=${jst(10)}~${jst(40)}&limit=100`), inRange(10, 40));
    assert.deepEqual(await pageAll(`datetime=${jst(300)}~&limit=100`), inRange(300, 10_000));
    assert.deepEqual(await pageAll(`datetime=~${jst(5)}&limit=100`), inRange(0, 5));
    // An explicit offset overrides Japan time.
    const utc = new Date(T0 + 10 * MINUTE).toISOString().slice(0, 19);
    assert.deepEqual(await pageAll(`datetime=${utc}Z~${jst(40)}&limit=100`), inRange(10, 40));
    for (const bad of [
      '2026-03-01',
      '~',
      'a~b',
      `${jst(40)}~${jst(10)}`,
      '2026-02-31T00:00:00~',
      '2026-03-01T25:00:00~',
    ]) {
      const r = await list(`datetime=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.message, 'Unexpected data of search query `datetime`.');
    }
  });

  it('limit: 1 to 100, default 20', async () => {
    assert.equal((await list('limit=1')).body.items.length, 1);
    assert.equal((await list('limit=100')).body.items.length, 100);
    for (const bad of ['0', '101', '-1', 'abc', '1.5', '']) {
      const r = await list(`limit=${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.message, 'Unexpected data of search query `limit`.');
    }
  });

  it('cursorToken: malformed or foreign tokens are 400', async () => {
    const v1 = await getJson(server, `/telegram/v1/list?key=${fullKey}&limit=1`);
    for (const bad of [
      'garbage!',
      'AAAA',
      Buffer.from('v2t.x.1').toString('base64url'),
      v1.body.nextToken,
      'x'.repeat(200),
    ]) {
      const r = await list(`cursorToken=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.message, 'Unexpected data of search query `cursorToken`.');
    }
  });

  it('polling with nextPooling returns exactly the new telegrams, in pages when many', async () => {
    const first = await list('limit=5');
    let pooling: string = first.body.nextPooling;
    const empty = await list(`cursorToken=${pooling}`);
    assert.deepEqual(empty.body.items, []);
    assert.equal(empty.body.nextToken, undefined);
    pooling = empty.body.nextPooling;

    const fresh: number[] = [];
    for (let i = 0; i < 5; i++) {
      const raw = Buffer.from(`SMJP01 RJTD 01000${i}\r\r\nAAXX 0100${i} 47401 11450=\r\r\n`);
      const outcome = await ingestTelegram(server.ctx, raw, { receivedTime: clock.now() });
      assert.ok(outcome.ok);
      fresh.push(outcome.stored.serial);
    }
    await settle(server);
    const got = await pollUntilEmpty(pooling, 10, async (cursor) => {
      const r = await list(`cursorToken=${cursor}&limit=2`);
      assert.equal(r.status, 200);
      assert.ok(r.body.items.length <= 2);
      return {
        serials: r.body.items.map((i: { serial: number }) => i.serial),
        next: r.body.nextPooling as string,
      };
    });
    assert.deepEqual(got.serials, fresh);
    // The same cursor keeps its position; filters are the client's to repeat.
    const quakeOnly = await list(`cursorToken=${first.body.nextPooling}&type=VXSE`);
    assert.deepEqual(quakeOnly.body.items, []);
  });

  it('credentials and scope', async () => {
    const anonymous = await getJson(server, '/v2/telegram');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.message, 'Authentication required.');
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await getJson(server, '/v2/telegram?key=AKe.wrong')).status, 401);
    const basic = await getJson(server, '/v2/telegram', {
      headers: { authorization: `Basic ${Buffer.from(`${fullKey}:`).toString('base64')}` },
    });
    assert.equal(basic.status, 200);
    const token = await accessToken(server, fullAccountId, ['telegram.list']);
    const bearer = await getJson(server, '/v2/telegram', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(bearer.status, 200);
    assert.deepEqual(
      bearer.body.items.map((i: { serial: number }) => i.serial),
      (await list('')).body.items.map((i: { serial: number }) => i.serial),
    );
    const badToken = await getJson(server, '/v2/telegram', {
      headers: { authorization: 'Bearer ATn.forged' },
    });
    assert.equal(badToken.status, 401);
    const noScope = await list('', noScopeKey);
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.error.message, 'Insufficient scope for `telegram.list`.');
  });

  it('unknown paths and methods get the envelope', async () => {
    const missing = await getJson(server, '/v2/telegrams');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.message, 'Not found.');
    const wrong = await getJson(server, `/v2/telegram?key=${fullKey}`, { method: 'DELETE' });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.body.error.message, 'Method not allowed.');
  });
});

describe('GET /telegram/v1/list', () => {
  let server: TestServer;
  let key: string;
  let serials: number[];
  let entries: FixtureEntry[];
  /** Non-XML earthquake telegrams ingested by the tests (never test telegrams). */
  const added: number[] = [];

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['telegram.list']);
    entries = allFixtures().filter(
      (e) => e.classification === 'telegram.earthquake' || e.classification === 'eew.forecast',
    );
    serials = await ingestFixtures(server, entries);
  });
  after(() => server.close());

  const v1 = (query: string) => getJson(server, `/telegram/v1/list?key=${key}${query ? '&' + query : ''}`);
  const quake = (filter: (e: FixtureEntry) => boolean = (e) => e.status === '通常', withAdded = true) => [
    ...(withAdded ? [...added].reverse() : []),
    ...serials
      .filter((_, i) => entries[i]!.classification === 'telegram.earthquake' && filter(entries[i]!))
      .reverse(),
  ];

  it('the deprecated shape, 100 per page by default, newCatch = highest serial', async () => {
    const r = await v1('');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.items.map((i: { data: { sendNumber: number } }) => i.data.sendNumber),
      quake().slice(0, 100),
    );
    const item = r.body.items[0];
    assert.deepEqual(Object.keys(item).sort(), V1_ITEM_FIELDS);
    assert.deepEqual(Object.keys(item.data).sort(), V1_DATA_FIELDS);
    assert.equal(item.url, `${server.url}/v1/${item.key}`);
    assert.equal(r.body.newCatch, quake()[0]);
  });

  it('nextToken pages to the end; newCatch returns only newer telegrams', async () => {
    const seen: number[] = [];
    let token: string | undefined;
    do {
      const r = await v1(`limit=9${token ? `&nextToken=${token}` : ''}`);
      seen.push(...r.body.items.map((i: { data: { sendNumber: number } }) => i.data.sendNumber));
      token = r.body.nextToken;
    } while (token);
    assert.deepEqual(seen, quake());

    const newest = quake()[0]!;
    const none = await v1(`newCatch=${newest}`);
    assert.deepEqual(none.body.items, []);
    assert.equal(none.body.newCatch, newest);
    // Re-ingesting a stored file is a duplicate: nothing newer appears.
    assert.deepEqual(await ingestFixtures(server, [entries[0]!]), [serials[0]]);
    assert.deepEqual((await v1(`newCatch=${newest}`)).body.items, []);
    const outcome = await ingestTelegram(
      server.ctx,
      Buffer.from('WEPA60 RJTD 010000\r\r\nTSUNAMI BULLETIN\r\r\n'),
      {
        receivedTime: Date.now(),
      },
    );
    assert.ok(outcome.ok);
    added.push(outcome.stored.serial);
    await settle(server);
    const newer = await v1(`newCatch=${newest}`);
    assert.deepEqual(
      newer.body.items.map((i: { data: { sendNumber: number } }) => i.data.sendNumber),
      [outcome.stored.serial],
    );
    assert.equal(newer.body.newCatch, outcome.stored.serial);
    assert.equal(newer.body.items[0].data.xml, false);
  });

  it('test=true includes, test=only restricts; xml=true adds xmlData', async () => {
    const all = await v1('test=true&limit=100');
    assert.deepEqual(
      all.body.items.map((i: { data: { sendNumber: number } }) => i.data.sendNumber),
      quake(() => true).slice(0, 100),
    );
    const only = await v1('test=only');
    assert.deepEqual(
      only.body.items.map((i: { data: { sendNumber: number } }) => i.data.sendNumber),
      quake((e) => e.status !== '通常', false),
    );
    const xml = await v1('xml=true&limit=3');
    for (const i of xml.body.items) {
      // A/N telegrams have no Control/Head to show.
      if (i.data.xml) assert.equal(typeof i.xmlData.control.title, 'string');
      else assert.equal(i.xmlData, undefined);
    }
    assert.equal((await v1('limit=3')).body.items[0].xmlData, undefined);
  });

  it('bad values are 400 naming the parameter', async () => {
    for (const [query, name] of [
      ['test=maybe', 'test'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['newCatch=-1', 'newCatch'],
      ['newCatch=x', 'newCatch'],
      ['nextToken=zzz', 'nextToken'],
      ['xml=1', 'xml'],
    ] as const) {
      const r = await v1(query);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.message, `Unexpected data of search query \`${name}\`.`);
    }
    const noKey = await getJson(server, '/telegram/v1/list');
    assert.equal(noKey.status, 401);
  });
});
