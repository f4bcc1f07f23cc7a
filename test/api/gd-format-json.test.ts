/**
 * `formatMode=json` (docs/conversion.md): the telegram list and a WebSocket session deliver the JSON
 * conversions in place of XML; and the official SDK's gd services against a running server.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { DMDATA } from '@dmdata/sdk-js';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fileBytes, ingestNamed, REAL_2021 } from './gd-support.ts';
import { getJson, settle } from '../support/data-api.ts';

const AN = Buffer.from('WEPA60 RJTD 110000\r\r\nTSUNAMI BULLETIN\r\r\n');
const BINARY = Buffer.concat([
  Buffer.from('IXAC41 RJTD 110000\r\r\n'),
  Buffer.from('BUFR\x00\x01\x02\xff', 'latin1'),
]);
/** A scheduled sea warning (VPZU52): no converter, so never listed in json mode. */
const NO_CONVERTER = '11_07_01_200630_VPZU52.xml';
const TSUNAMI = '32-39_11_02_250206_VTSE41.xml';
const [FLASH, HYPOCENTER, INTENSITY] = REAL_2021.slice(1, 4) as [string, string, string];

interface Item {
  serial: number;
  id: string;
  format: string;
  head: { type: string };
  schema?: { type: string; version: string };
  url: string;
}

describe('formatMode=json and the official SDK’s gd services', () => {
  let server: TestServer;
  let key: string;
  const get = (path: string) => getJson(server, `${path}${path.includes('?') ? '&' : '?'}key=${key}`);

  before(async () => {
    server = await startTestServer({ config: { dpopNonce: false } });
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'telegram.scheduled', 'eew.forecast', 'eew.warning'],
    });
    key = await server.createApiKey(account.id, [
      'telegram.list',
      'telegram.data',
      'telegram.get.earthquake',
      'telegram.get.scheduled',
      'socket.start',
      'gd.earthquake',
      'gd.eew',
    ]);
    for (const raw of [AN, BINARY])
      assert.ok(
        (await ingestTelegram(server.ctx, raw, { receivedTime: server.ctx.clock.now() })).ok,
        'A/N and binary ingested',
      );
    await ingestNamed(server, [NO_CONVERTER, TSUNAMI, FLASH, HYPOCENTER]);
    await settle(server);
  });
  after(() => server.close());

  it('GET /v2/telegram?formatMode=json lists conversions, A/N and binary; raw never lists json', async () => {
    const json = (await get('/v2/telegram?formatMode=json&limit=100')).body.items as Item[];
    const raw = (await get('/v2/telegram?limit=100')).body.items as Item[];
    // Newest first: 震源, 震度速報, 津波 (each its conversion), then binary and A/N; no VPZU52.
    assert.deepEqual(
      json.map((i) => [i.head.type, i.format, i.schema]),
      [
        ['VXSE52', 'json', { type: 'earthquake-information', version: '1.1.0' }],
        ['VXSE51', 'json', { type: 'earthquake-information', version: '1.1.0' }],
        ['VTSE41', 'json', { type: 'tsunami-information', version: '1.1.0' }],
        ['IXAC41', 'binary', undefined],
        ['WEPA60', 'a/n', undefined],
      ],
    );
    assert.deepEqual(
      raw.map((i) => [i.head.type, i.format]),
      [
        ['VXSE52', 'xml'],
        ['VXSE51', 'xml'],
        ['VTSE41', 'xml'],
        ['VPZU52', 'xml'],
        ['IXAC41', 'binary'],
        ['WEPA60', 'a/n'],
      ],
    );
    assert.ok(
      raw.every((i) => !('schema' in i)),
      'raw items carry no schema',
    );
    // Each conversion is stored right after its XML; its body names the XML by id.
    for (const item of json.filter((i) => i.format === 'json')) {
      const source = raw.find((r) => r.serial === item.serial - 1)!;
      assert.equal(source.head.type, item.head.type);
      const document = (await (await fetch(`${item.url}?key=${key}`)).json()) as { _originalId: string };
      assert.equal(document._originalId, source.id);
    }
    // A type filter applies to the conversions too.
    const typed = (await get('/v2/telegram?formatMode=json&type=VXSE5')).body.items as Item[];
    assert.deepEqual(
      typed.map((i) => i.head.type),
      ['VXSE52', 'VXSE51'],
    );
  });

  it('a WebSocket session with formatMode json receives the conversion of an XML ingested after it opened', async () => {
    const started = await fetch(`${server.url}/v2/socket?key=${key}`, {
      method: 'POST',
      body: JSON.stringify({ classifications: ['telegram.earthquake'], formatMode: 'json' }),
    });
    assert.equal(started.status, 200);
    const session = (await started.json()) as { websocket: { url: string }; formats: string[] };
    assert.deepEqual(session.formats, ['a/n', 'binary', 'json']);
    const client = new TestClient(session.websocket.url);
    const start = await client.next();
    assert.equal(start.type, 'start');
    assert.deepEqual(start.formats, ['a/n', 'binary', 'json']);

    const serial = (await ingestNamed(server, [INTENSITY])).get(INTENSITY)!;
    const data = await client.next<{
      type: string;
      id: string;
      originalId: string;
      classification: string;
      head: { type: string; test: boolean };
      format: string;
      schema: { type: string; version: string };
      compression: string;
      encoding: string;
      body: string;
    }>();
    client.ws.close();
    assert.equal(data.type, 'data');
    assert.equal(data.classification, 'telegram.earthquake');
    assert.equal(data.head.type, 'VXSE53');
    assert.equal(data.head.test, false);
    assert.equal(data.format, 'json');
    assert.deepEqual(data.schema, { type: 'earthquake-information', version: '1.1.0' });
    assert.equal(data.compression, 'gzip');
    assert.equal(data.encoding, 'base64');
    const bytes = Buffer.from(data.body, 'base64');
    assert.equal(data.id, createHash('sha384').update(bytes).digest('hex'));

    // originalId is the XML telegram: listed at the previous serial, its body the fixture.
    const xml = ((await get('/v2/telegram?limit=1&type=VXSE53')).body.items as Item[])[0]!;
    assert.equal(xml.serial, serial - 1);
    assert.equal(data.originalId, xml.id);
    const xmlBody = await fetch(`${xml.url}?key=${key}`);
    assert.deepEqual(Buffer.from(await xmlBody.arrayBuffer()), fileBytes(INTENSITY));

    // The body is the JSON document of 20210217140958 (震源・震度情報, 福島県沖 M4.5, 震度3).
    const document = JSON.parse(gunzipSync(bytes).toString('utf8'));
    assert.equal(document._originalId, xml.id);
    assert.deepEqual(document._schema, { type: 'earthquake-information', version: '1.1.0' });
    assert.equal(document.type, '震源・震度に関する情報');
    assert.equal(document.eventId, '20210217230627');
    assert.equal(document.serialNo, '1');
    assert.equal(document.body.earthquake.hypocenter.name, '福島県沖');
    assert.equal(document.body.earthquake.magnitude.value, '4.5');
    assert.equal(document.body.intensity.maxInt, '3');
    // The list's json item is the same telegram.
    const listed = ((await get('/v2/telegram?formatMode=json&limit=1')).body.items as Item[])[0]!;
    assert.equal(listed.id, data.id);
    assert.equal(listed.serial, serial);
  });

  it('official SDK: gdEarthquake.list / event, gdEew.list / event', async () => {
    const base = `${server.url}/v2`;
    const sdk = new DMDATA({
      credentials: { apikey: key },
      endpoints: {
        contract: `${base}/contract`,
        socket: `${base}/socket`,
        telegram: `${base}/telegram`,
        'telegram/body': `${server.url}/v1`,
        parameter: `${base}/parameter`,
        'gd/earthquake': `${base}/gd/earthquake`,
        'gd/eew': `${base}/gd/eew`,
      },
    });
    await ingestNamed(server, [
      '77_01_01_240613_VXSE45.xml',
      '77_01_32_240613_VXSE45.xml',
      '77_01_33_240613_VXSE45.xml',
    ]);

    const list = await sdk.gdEarthquake.list({ limit: 10, maxInt: '3', hypocenter: '289' });
    assert.equal(list.status, 200);
    assert.equal(list.data.status, 'ok');
    assert.equal(list.data.items.length, 1);
    const [summary] = list.data.items;
    assert.equal(summary!.eventId, '20210217230627');
    assert.equal(summary!.maxInt, '3');
    assert.equal(summary!.hypocenter?.name, '福島県沖');
    assert.equal(typeof list.data.nextPooling, 'string');
    const dated = await sdk.gdEarthquake.list({ date: '2021-02-17' });
    assert.deepEqual(
      dated.data.items.map((e) => e.eventId),
      ['20210217230627'],
    );

    const event = await sdk.gdEarthquake.event('20210217230627');
    assert.equal(event.data.status, 'ok');
    assert.equal(event.data.event.eventId, '20210217230627');
    assert.deepEqual(
      event.data.event.telegrams.map((t) => [t.head.type, t.format, t.schema?.type]),
      [
        ['VXSE51', 'json', 'earthquake-information'],
        ['VXSE52', 'json', 'earthquake-information'],
        ['VXSE53', 'json', 'earthquake-information'],
      ],
    );
    await assert.rejects(
      sdk.gdEarthquake.event('20000101000000'),
      (err: { response?: { status: number; data: { error: { message: string } } } }) =>
        err.response?.status === 404 && err.response.data.error.message === 'Not found.',
    );

    const eew = await sdk.gdEew.list({ limit: 5 });
    assert.equal(eew.data.status, 'ok');
    assert.deepEqual(
      eew.data.items.map((r) => [r.eventId, r.serial, r.isLastInfo, r.isCanceled]),
      [['20240417231454', 32, true, true]],
    );
    const reports = await sdk.gdEew.event('20240417231454');
    assert.equal(reports.data.status, 'ok');
    assert.deepEqual(
      reports.data.items.map((r) => [r.serial, r.isCanceled]),
      [
        [32, true],
        [32, false],
        [1, false],
      ],
    );
  });
});
