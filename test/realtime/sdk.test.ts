/**
 * The official JS SDK (@dmdata/sdk-js 0.2.4) against a real server: socket.start → `start` event →
 * ingest a fixture → `data` event with the telegram byte for byte; its automatic pong keeps the
 * connection alive past the pong timeout while a silent client is closed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { DMDATA, SERVICES } from '@dmdata/sdk-js';
import { ManualClock } from '../../src/clock.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixture } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { waitFor } from '../support/wait.ts';

const officialSample = (name: string) => readFileSync(fixture('official', name));

interface DataEvent {
  id: string;
  classification: string;
  head: { type: string; test: boolean };
  format: string;
  compression: string | null;
  encoding: string;
  body: string;
}

let server: TestServer;
const clock = new ManualClock();
before(async () => {
  server = await startTestServer({ clock, config: { pingIntervalMs: 1000 } });
});
after(() => server.close());

function sdkFor(key: string) {
  const endpoints = Object.fromEntries(SERVICES.map((s) => [s, `${server.url}/v2/${s}`]));
  return new DMDATA({ credentials: { apikey: key }, endpoints } as ConstructorParameters<typeof DMDATA>[0]);
}

/** The SDK's events, loosely typed: the tests check the payloads themselves. */
function nextEvent<T>(ws: object, event: string): Promise<T> {
  const emitter = ws as { once(event: string, listener: (m: T) => void): unknown };
  return new Promise((resolve) => emitter.once(event, resolve));
}

test('socket.start, start event, data events byte-identical to the ingested fixtures; pongs keep it alive', async () => {
  const { account } = await server.createAccount({ contracts: ['eew.forecast', 'telegram.observation'] });
  const key = await server.createApiKey(account.id, [
    'socket.start',
    'socket.list',
    'eew.get.forecast',
    'telegram.get.observation',
  ]);
  const sdk = sdkFor(key);
  const ws = await sdk.socket.start({
    classifications: ['eew.forecast', 'telegram.observation'],
    appName: 'sdk-test',
  } as Parameters<typeof sdk.socket.start>[0]);
  const start = await nextEvent<{ socketId: number; classifications: string[]; appName: string }>(
    ws,
    'start',
  );
  assert.deepEqual(start.classifications, ['eew.forecast', 'telegram.observation']);
  assert.equal(start.appName, 'sdk-test');
  // On Node 20 the SDK hands `{protocol}` to ws as options, so it offers no subprotocol: the
  // handshake must succeed without one. Where Node has a global WebSocket (22 and later), the SDK
  // takes it, which offers service.v2: echoed (docs/api-contract.md).
  assert.equal(ws.protocol, typeof globalThis.WebSocket === 'function' ? 'service.v2' : '');

  // A gzip-compressed EEW and an uncompressed VGSK50.
  const eew = officialSample('77_01_01_240613_VXSE45.xml');
  const data1 = nextEvent<DataEvent>(ws, 'data');
  const ingested = await ingestTelegram(server.ctx, eew, {
    fileName: '77_01_01_240613_VXSE45.xml',
    receivedTime: clock.now(),
  });
  assert.ok(ingested.ok);
  const d1 = await data1;
  assert.equal(d1.classification, 'eew.forecast');
  assert.equal(d1.head.type, 'VXSE45');
  assert.equal(d1.compression, 'gzip');
  assert.equal(d1.encoding, 'base64');
  const bytes1 = Buffer.from(d1.body, 'base64');
  assert.equal(d1.id, createHash('sha384').update(bytes1).digest('hex'));
  assert.deepEqual(gunzipSync(bytes1), eew, 'the decoded body is the fixture, byte for byte');
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /namazu_delivery_latency_seconds_count\{classification="eew.forecast"\} 1\n/);
  assert.match(metrics, /namazu_websocket_open_connections 1\n/);

  const season = officialSample('01_01_01_091210_VGSK50.xml');
  const data2 = nextEvent<DataEvent>(ws, 'data');
  assert.ok(
    (
      await ingestTelegram(server.ctx, season, {
        fileName: '01_01_01_091210_VGSK50.xml',
        receivedTime: clock.now(),
      })
    ).ok,
  );
  const d2 = await data2;
  assert.equal(d2.compression, null);
  assert.equal(d2.encoding, 'utf-8');
  const bytes2 = Buffer.from(d2.body, 'utf8');
  assert.deepEqual(bytes2, season);
  assert.equal(d2.id, createHash('sha384').update(bytes2).digest('hex'));

  // A raw client that never answers pings, next to the SDK that answers them itself.
  const started = await fetch(`${server.url}/v2/socket?key=${key}`, {
    method: 'POST',
    body: JSON.stringify({ classifications: ['eew.forecast'] }),
  });
  const s = (await started.json()) as { websocket: { url: string } };
  const silent = new TestClient(s.websocket.url);
  assert.equal((await silent.next()).type, 'start');

  let closedCode: number | null = null;
  ws.on('close', (code: number) => (closedCode = code));
  /** The SDK session as the list shows it: `ping` is its latest pong the server recorded. */
  const listed = async () => {
    const list = (await (await fetch(`${server.url}/v2/socket?id=${start.socketId}&key=${key}`)).json()) as {
      items: { ping: string | null; status: string }[];
    };
    return list.items[0]!;
  };
  // 100 s pass; the next ping (every real second here) is answered by the SDK, and the server
  // records that pong at the tick after it.
  clock.advance(100_000);
  await nextEvent(ws, 'ping');
  const answeredAt = clock.now();
  await waitFor(
    async () => {
      const { ping } = await listed();
      return ping !== null && Date.parse(ping) >= answeredAt;
    },
    { message: "the SDK's pong to be recorded" },
  );
  // 130 s after opening: the silent client is closed with 4891, the SDK's connection lives on.
  clock.advance(30_000);
  for (;;) {
    const m = await silent.next();
    if (m.type === 'error') {
      assert.equal(m.code, 4891);
      break;
    }
  }
  assert.equal((await silent.closed).code, 4891);
  await nextEvent(ws, 'ping');
  assert.equal(closedCode, null);
  assert.equal(ws.readyState, 1);
  // The pong times are recorded once per ping interval: the list shows the latest.
  const session = await listed();
  assert.equal(session.status, 'open');
  const ping = session.ping;
  assert.ok(ping !== null && Date.parse(ping) >= clock.now() - 30_000, `ping recorded: ${ping}`);
  ws.close(1000);
});
