/**
 * JMA's largest sample telegrams (the four VPRN50, 3.8–4.0 MB) through the real paths of a serving
 * process: posted to the ingest endpoint, stored, listed, delivered on a WebSocket and served as a
 * body; and the documented refusal of a telegram one byte over NAMAZU_MAX_TELEGRAM_BYTES.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { CommandIo } from '../../src/cli/database.ts';
import { ingestCommand } from '../../src/cli/ingest.ts';
import { replayCommand } from '../../src/cli/replay.ts';
import { DEFAULT_MAX_TELEGRAM_BYTES } from '../../src/config.ts';
import { ingestInOrder, ingestTelegram, type IngestOutcome } from '../../src/telegrams/ingest.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { allRestXmlFixtures, fixture } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';

/** The largest of the sample set, and the one of them sent over the socket. */
const large = allRestXmlFixtures()
  .filter((path) => path.endsWith('_VPRN50.xml'))
  .sort();

describe('telegrams of several megabytes', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      admin: true,
      contracts: ['telegram.weather', 'telegram.observation'],
    });
    key = await server.createApiKey(account.id, [
      'admin.telegram.ingest',
      'telegram.list',
      'telegram.data',
      'telegram.get.weather',
      'telegram.get.observation',
      'socket.start',
    ]);
  });
  after(() => server.close());

  const auth = () => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });

  it('the four VPRN50 are stored by POST /admin/v1/telegrams, listed, delivered and served', async () => {
    assert.equal(large.length, 4);
    assert.ok(DEFAULT_MAX_TELEGRAM_BYTES >= 16 * 1024 * 1024, 'the default covers them with room to spare');
    const started = await fetch(`${server.url}/v2/socket`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ classifications: ['telegram.weather'], types: ['VPRN50'] }),
    });
    assert.equal(started.status, 200);
    const { websocket } = (await started.json()) as { websocket: { url: string } };
    const client = new TestClient(websocket.url, ['service.v2']);
    assert.equal((await client.next()).type, 'start');

    const stored: { id: string; serial: number; raw: Buffer }[] = [];
    for (const path of large) {
      const raw = readFileSync(path);
      assert.ok(raw.length > 3.8e6, `${basename(path)} is ${raw.length} bytes`);
      const res = await fetch(`${server.url}/admin/v1/telegrams?fileName=${basename(path)}`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/xml' },
        body: raw,
      });
      const body = (await res.json()) as { id: string; serial: number; duplicate: boolean };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.duplicate, false);
      stored.push({ id: body.id, serial: body.serial, raw });
    }
    assert.deepEqual(
      stored.map((s) => s.serial),
      [...stored.map((s) => s.serial)].sort((a, b) => a - b),
      'serials increase in the order of ingest',
    );

    // Delivered on the socket, in order, each once, body byte for byte.
    for (const { id, raw } of stored) {
      let data = await client.next<{ type: string; id: string; body: string; compression: string }>();
      while (data.type === 'ping') data = await client.next(); // a slow machine's test outlasts 30 s
      assert.equal(data.type, 'data');
      assert.equal(data.id, id);
      assert.equal(data.compression, 'gzip');
      const bytes = Buffer.from(data.body, 'base64');
      assert.equal(createHash('sha384').update(bytes).digest('hex'), id);
      assert.ok(gunzipSync(bytes).equals(raw));
    }
    client.ws.close();

    // Listed.
    const list = await fetch(`${server.url}/v2/telegram?type=VPRN50`, { headers: auth() });
    assert.equal(list.status, 200);
    const listed = ((await list.json()) as { items: { id: string; serial: number }[] }).items;
    assert.deepEqual(listed.map((t) => t.id).sort(), stored.map((s) => s.id).sort());

    // Served as a body, whole.
    for (const { id, raw } of stored.slice(0, 2)) {
      const res = await fetch(`${server.url}/v1/${id}`, { headers: auth() });
      assert.equal(res.status, 200);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(raw));
    }
  });

  it('sent in chunks without a Content-Length, a VPRN50 arrives whole: the same telegram', async () => {
    const raw = readFileSync(large[0]!);
    const post = async (body: RequestInit['body'], extra: RequestInit = {}) => {
      const res = await fetch(`${server.url}/admin/v1/telegrams?fileName=${basename(large[0]!)}`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/xml' },
        body,
        ...extra,
      });
      return { status: res.status, body: (await res.json()) as { id: string; duplicate: boolean } };
    };
    const declared = await post(raw);
    const streamed = await post(
      new ReadableStream({
        start(stream) {
          for (let at = 0; at < raw.length; at += 50_000) stream.enqueue(raw.subarray(at, at + 50_000));
          stream.close();
        },
      }),
      { duplex: 'half' } as RequestInit,
    );
    assert.equal(streamed.status, 200);
    assert.deepEqual([streamed.body.id, streamed.body.duplicate], [declared.body.id, true]);
  });

  it('a body stored uncompressed is its own bytes: upload memory read into again leaves it as it was', async () => {
    // A/N telegrams are stored as received, not compressed: the likeliest to share the upload's
    // memory. Their body is served without the JMA header line.
    const an = (hour: number, text: string) => Buffer.from(`SMJP01 RJTD 26${hour}00\r\r\n${text}`);
    const body = async (id: string) =>
      Buffer.from(await (await fetch(`${server.url}/v1/${id}`, { headers: auth() })).arrayBuffer());
    const post = async (raw: Buffer) => {
      const res = await fetch(`${server.url}/admin/v1/telegrams`, {
        method: 'POST',
        headers: auth(),
        body: raw,
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { id: string }).id;
    };
    const firstText = 'A'.repeat(300_000);
    const firstId = await post(an(10, firstText));
    // The same size: the second upload is read into the memory the first was read into.
    await post(an(11, 'B'.repeat(300_000)));
    assert.equal((await body(firstId)).toString(), firstText);

    // Prepared on the event loop (below the worker threshold) from shared memory, then overwritten.
    const smallText = 'C'.repeat(900);
    const small = an(12, smallText);
    const shared = Buffer.from(new SharedArrayBuffer(small.length));
    small.copy(shared);
    const outcome = await ingestTelegram(server.ctx, shared, { receivedTime: Date.now() });
    assert.ok(outcome.ok);
    shared.fill('D');
    assert.equal((await body(outcome.stored.id)).toString(), smallText);
  });
});

describe('a telegram one byte over NAMAZU_MAX_TELEGRAM_BYTES', () => {
  const LIMIT = 64 * 1024;
  let server: TestServer;
  /** A real XML telegram padded to exactly `size` bytes with a comment inside its root. */
  const sized = (size: number) => {
    const xml = readFileSync(fixture('official', '32-35_06_06_100915_VXSE53.xml')).toString('utf8');
    const [open, close] = [
      xml.slice(0, xml.lastIndexOf('</Report>')),
      xml.slice(xml.lastIndexOf('</Report>')),
    ];
    const pad = size - Buffer.byteLength(open + close) - '<!---->'.length;
    return Buffer.from(`${open}<!--${'x'.repeat(pad)}-->${close}`);
  };
  const stored = async () =>
    (
      await server.ctx.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM telegrams WHERE format = 'xml'",
      )
    )[0]!.n;
  const refusals = async () =>
    (await server.ctx.metrics.telegramsTooLarge.get()).values.find((v) => v.labels.path === 'ingest')
      ?.value ?? 0;

  before(async () => {
    server = await startTestServer({ listen: false, config: { maxTelegramBytes: LIMIT } });
  });
  after(() => server.close());

  it('is refused by the ingest with the documented reason, counted, and stores nothing', async () => {
    const n = await stored();
    const counted = await refusals();
    const over = await ingestTelegram(server.ctx, sized(LIMIT + 1), { receivedTime: Date.now() });
    assert.deepEqual(over, { ok: false, reason: `telegram larger than ${LIMIT} bytes` });
    assert.equal(await refusals(), counted + 1);
    assert.equal(await stored(), n);
    // At the limit exactly, it is stored.
    const at = await ingestTelegram(server.ctx, sized(LIMIT), { receivedTime: Date.now() });
    assert.ok(at.ok, !at.ok ? at.reason : '');
    assert.equal(await stored(), n + 1);
  });

  it('is refused by a bulk ingest among telegrams that are stored', async () => {
    const n = await stored();
    const outcomes: IngestOutcome[] = [];
    const items = [sized(LIMIT - 1), sized(LIMIT + 1)].map((raw) => ({
      raw,
      hints: { receivedTime: Date.now() },
    }));
    await ingestInOrder(server.ctx, items, (o) => outcomes.push(o));
    assert.ok(outcomes[0]!.ok);
    assert.deepEqual(outcomes[1], { ok: false, reason: `telegram larger than ${LIMIT} bytes` });
    assert.equal(await stored(), n + 1);
  });

  it('is refused by namazu ingest and namazu replay without being read; the others are stored', async () => {
    // A directory of a small telegram and JMA's VPTA50 (1.8 MB), with the limit one byte below it.
    const dir = mkdtempSync(join(tmpdir(), 'namazu-size-'));
    const big = fixture('rest', '76_01_01_200630_VPTA50.xml');
    const small = fixture('official', '32-35_04_04_240613_VXSE53.xml');
    symlinkSync(big, join(dir, basename(big)));
    symlinkSync(small, join(dir, basename(small)));
    const limit = statSync(big).size - 1;
    const out: string[] = [];
    const io: CommandIo = {
      cwd: dir,
      withDatabase: (_values, fn) =>
        fn({
          config: { ...server.ctx.config, maxTelegramBytes: limit },
          db: server.ctx.db,
          pepper: server.ctx.pepper,
          bus: async () => server.ctx.bus,
        }),
      stdout: (text) => out.push(text),
      // Progress lines of replay (one per telegram); the summary is the one JSON line on stdout.
      stderr: () => {},
    };
    try {
      const n = await stored();
      await ingestCommand(['.'], io);
      const ingested = JSON.parse(out.splice(0).join(''));
      assert.equal(ingested.ingested, 1);
      assert.deepEqual(ingested.rejected, [
        { path: basename(big), reason: `telegram larger than ${limit} bytes` },
      ]);
      assert.equal(await stored(), n + 1);
      await replayCommand(['--speed', '1000', '.'], io);
      const replayed = JSON.parse(out.splice(0).join(''));
      assert.equal(replayed.ingested, 1, 'the small one, as a new telegram');
      assert.deepEqual(replayed.skipped, [
        { path: basename(big), reason: `telegram larger than ${limit} bytes` },
      ]);
      assert.equal(await stored(), n + 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
