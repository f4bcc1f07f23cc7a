/**
 * Earthquake scenarios (docs/sources.md): every generated telegram passes ingest's
 * validation and converts to a schema-valid document; 訓練 by default; with asReal the sequence
 * merges into one earthquake event and one EEW record (/v2/gd/earthquake, /v2/gd/eew).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaults, type Config } from '../../src/config.ts';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { instrumentalIntensity } from '../../src/sources/scenario/attenuation.ts';
import { refuseRealBesideSources, runScenario, ScenarioRefused } from '../../src/sources/scenario/run.ts';
import { earthquakeScenario } from '../../src/sources/scenario/sequence.ts';
import { AREAS } from '../../src/sources/scenario/sites.ts';
import { prepareTelegram } from '../../src/telegrams/prepare.ts';
import { getJson, settle } from '../support/data-api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKYO = { latitude: 35.7, longitude: 139.7, depthKm: 40, magnitude: 7.1 };
/** Off Fukushima, large and shallow: a tsunami forecast is due. */
const OFFSHORE = { latitude: 37.6, longitude: 141.9, depthKm: 20, magnitude: 7.8 };
const RANK = ['0', '1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'];

describe('earthquake scenario telegrams', () => {
  for (const [name, source] of Object.entries({ TOKYO, OFFSHORE })) {
    it(`${name}: every telegram is accepted by ingest, typed as generated, test, and converts`, () => {
      const { telegrams, eventId } = earthquakeScenario({ ...source, asReal: false }, Date.now());
      const types = new Set(telegrams.map((t) => t.type));
      for (const t of ['VXSE45', 'VXSE44', 'VXSE43', 'VXSE51', 'VXSE52', 'VXSE53'])
        assert.ok(types.has(t), t);
      assert.equal(types.has('VTSE41'), name === 'OFFSHORE');
      for (const t of telegrams) {
        const prepared = prepareTelegram(Buffer.from(t.xml), { receivedTime: Date.now() });
        assert.ok(prepared.ok, `${t.type}: ${prepared.ok ? '' : prepared.reason}`);
        assert.equal(prepared.telegram.head.type, t.type);
        assert.equal(prepared.telegram.head.test, true);
        const converted = convertTelegram(t.xml, t.type, prepared.telegram.id);
        assert.ok(converted?.ok, `${t.type}: ${JSON.stringify(converted)}`);
        assert.equal(converted.document.eventId, eventId);
        assert.equal(converted.document.status, '訓練');
      }
      const offsets = telegrams.map((t) => t.offsetMs);
      assert.deepEqual(
        offsets,
        [...offsets].sort((a, b) => a - b),
        'in issue order',
      );
      assert.equal(offsets[0], 0);
    });
  }

  for (const speed of [0.5, 1, 10, 1000]) {
    it(`speed ${speed}: each telegram is dated no later than it is due, and the first one at the start`, () => {
      const start = Date.parse('2026-11-24T03:00:00.250Z');
      const { telegrams } = earthquakeScenario({ ...OFFSHORE, asReal: false }, start, speed);
      for (const t of telegrams) {
        const due = start + t.offsetMs / speed;
        for (const m of t.xml.matchAll(/<(DateTime|ReportDateTime)>([^<]+)</g))
          assert.ok(
            Date.parse(m[2]!) <= due,
            `${t.type} ${m[1]} ${m[2]} after ${new Date(due).toISOString()}`,
          );
      }
      const report = /<ReportDateTime>([^<]+)</.exec(telegrams.at(-1)!.xml)![1]!;
      // JMA's order is kept at every speed: the detailed report comes 295 s of scenario time later.
      assert.ok(Date.parse(report) > start + 295_000 / speed - 60_000 - 1000, report);
    });
  }

  it('EEW reports have rising serials and end with a final report', () => {
    const { telegrams } = earthquakeScenario({ ...TOKYO, asReal: false }, Date.now());
    const docs = telegrams
      .filter((t) => t.type === 'VXSE45')
      .map((t) => convertTelegram(t.xml, t.type, 'x'))
      .map((c) =>
        c?.ok ? (c.document as unknown as { serialNo: string; body: { isLastInfo: boolean } }) : null,
      );
    assert.deepEqual(
      docs.map((d) => Number(d?.serialNo)),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      docs.map((d) => d?.body.isLastInfo),
      [false, false, false, false, true],
    );
  });

  it('intensity from Si & Midorikawa (1999) and Midorikawa et al. (1999): a value worked by hand', () => {
    // Mw 7, 10 km deep (crustal), 99.5 km north: X = 100 km. log PGV = 4.06 + 0.038 − 1.29 −
    // log(100 + 0.0028·10^3.5 = 108.854) − 0.2 = 0.57116; × (600/400)^0.66 → 0.68738; below 4 by
    // 2.68 + 1.72·log PGV (3.862), so I = 2.30 + 2.01·0.68738 = 3.6816.
    const epicentral = Math.sqrt(100 ** 2 - 10 ** 2);
    const lat = 35 + epicentral / 111.195; // along the meridian, 111.195 km a degree
    const i = instrumentalIntensity({ latitude: 35, longitude: 139, depthKm: 10, magnitude: 7 }, lat, 139);
    assert.ok(Math.abs(i - 3.6816) < 0.001, String(i));
  });

  it('intensities of the detailed report decrease with distance from the hypocentre', () => {
    const { telegrams } = earthquakeScenario({ ...TOKYO, asReal: false }, Date.now());
    const vxse53 = telegrams.find((t) => t.type === 'VXSE53')!;
    const converted = convertTelegram(vxse53.xml, 'VXSE53', 'x');
    assert.ok(converted?.ok);
    const body = converted.document.body as unknown as {
      intensity: { regions: { code: string; maxInt: string }[] };
    };
    const position = new Map(AREAS.map(([code, , , lat, lon]) => [code, [lat, lon] as const]));
    const km = (code: string) => {
      const [lat, lon] = position.get(code)!;
      return Math.hypot((lat - TOKYO.latitude) * 111, (lon - TOKYO.longitude) * 91);
    };
    const regions = body.intensity.regions.map((r) => ({ km: km(r.code), rank: RANK.indexOf(r.maxInt) }));
    assert.ok(regions.length > 20);
    regions.sort((a, b) => a.km - b.km);
    for (let i = 1; i < regions.length; i++)
      assert.ok(
        regions[i]!.rank <= regions[i - 1]!.rank + 0,
        `${JSON.stringify(regions.slice(i - 1, i + 1))}`,
      );
    assert.ok(regions[0]!.rank > regions.at(-1)!.rank);
  });

  it('--as-real is refused while a real source is enabled', () => {
    const config: Config = { ...defaults(), sources: ['jma-feed'] };
    assert.throws(() => refuseRealBesideSources(config, true), ScenarioRefused);
    refuseRealBesideSources(config, false);
    refuseRealBesideSources(defaults(), true);
  });
});

describe('earthquake scenarios ingested', () => {
  let server: TestServer;
  let key: string;
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);
  const deps = () => ({ db: server.ctx.db, bus: server.ctx.bus, telegrams: server.ctx.telegrams });

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
    });
    key = await server.createApiKey(account.id, ['gd.earthquake', 'gd.eew', 'telegram.list']);
  });
  after(() => server.close());

  it('by default every telegram is test: none in /v2/gd/*, none in the default telegram list', async () => {
    const result = await runScenario(deps(), { ...TOKYO, asReal: false }, 1000);
    assert.deepEqual(result.rejected, []);
    assert.ok(result.telegrams.length >= 12);
    await settle(server);
    assert.deepEqual((await get('/v2/gd/earthquake')).body.items, []);
    assert.deepEqual((await get('/v2/gd/eew')).body.items, []);
    assert.deepEqual((await get('/v2/telegram')).body.items, []);
    const tests = (await get('/v2/telegram?test=only&limit=100')).body.items as { head: { test: boolean } }[];
    // The earthquake class (VXSE51/52/53) of the sequence, all of them test.
    assert.equal(tests.length, result.telegrams.filter((t) => /^VXSE5/.test(t.type)).length);
    assert.ok(tests.every((t) => t.head.test));
  });

  it('--as-real merges into one earthquake event and one EEW record; a second run is a second event', async () => {
    const first = await runScenario(deps(), { ...TOKYO, asReal: true }, 1000);
    const second = await runScenario(deps(), { ...TOKYO, asReal: true }, 1000);
    assert.notEqual(first.eventId, second.eventId);
    const events = (await get('/v2/gd/earthquake')).body.items as {
      eventId: string;
      hypocenter: {
        coordinate: { latitude: { value: string }; longitude: { value: string } };
        depth: { value: string };
      };
      magnitude: { value: string };
      maxInt: string;
    }[];
    assert.deepEqual(events.map((e) => e.eventId).sort(), [first.eventId, second.eventId].sort());
    const event = events.find((e) => e.eventId === first.eventId)!;
    assert.equal(Number(event.hypocenter.coordinate.latitude.value), 35.7);
    assert.equal(Number(event.hypocenter.coordinate.longitude.value), 139.7);
    assert.equal(Number(event.hypocenter.depth.value), 40);
    assert.equal(event.magnitude.value, '7.1');
    const eew = (await get('/v2/gd/eew')).body.items as {
      eventId: string;
      isLastInfo: boolean;
      earthquake: { magnitude: { value: string }; hypocenter: { depth: { value: string } } };
    }[];
    assert.deepEqual(eew.map((r) => r.eventId).sort(), [first.eventId, second.eventId].sort());
    const record = eew.find((r) => r.eventId === first.eventId)!;
    assert.equal(record.isLastInfo, true);
    assert.equal(record.earthquake.magnitude.value, '7.1');
    assert.equal(Number(record.earthquake.hypocenter.depth.value), 40);
  });

  it('--speed 100: no telegram is dated after the moment it is stored (report, control and head times)', async () => {
    const result = await runScenario(deps(), { ...OFFSHORE, asReal: false }, 100);
    assert.deepEqual(result.rejected, []);
    const rows = await server.ctx.db.query<{
      type: string;
      head_time: string | Date;
      received_time: string | Date;
      report: string;
      control: string;
    }>(
      `SELECT type, head_time, received_time, xml_report->'head'->>'reportDateTime' AS report,
              xml_report->'control'->>'dateTime' AS control
         FROM telegrams WHERE id = ANY($1) ORDER BY serial`,
      [result.telegrams.map((t) => t.id)],
    );
    assert.equal(rows.length, result.telegrams.length);
    assert.ok(
      rows.some((r) => r.type === 'VXSE53'),
      'the last report, 295 s of scenario time later, is there',
    );
    for (const r of rows) {
      const stored = new Date(r.received_time).getTime();
      for (const [what, time] of [
        ['Head/ReportDateTime', r.report],
        ['Control/DateTime', r.control],
        ['head.time', new Date(r.head_time).toISOString()],
      ] as const) {
        assert.ok(
          Date.parse(time) <= stored,
          `${r.type} ${what} ${time} after it was stored (${new Date(stored).toISOString()})`,
        );
      }
    }
  });
});
