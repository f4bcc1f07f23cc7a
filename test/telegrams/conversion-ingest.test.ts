import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { channels, type Bus } from '../../src/bus/types.ts';
import { openDb } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { rebuildConversions } from '../../src/telegrams/rebuild.ts';
import { loadTelegramsAfter } from '../../src/telegrams/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';

const sha384 = (b: Buffer) => createHash('sha384').update(b).digest('hex');
const received = Date.parse('2024-04-17T14:14:58.000Z');
const eewFile = '77_01_01_240613_VXSE45.xml';
const eewXml = readFileSync(fixture('official', eewFile));

describe('JSON conversion inside ingest', () => {
  let database: TestDatabase;
  let db: Db;
  let bus: Bus;
  const announced: number[] = [];

  before(async () => {
    database = await createTestDatabase();
    db = await openDb({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
    bus = createMemoryBus();
    await bus.subscribe(channels.telegram, (p) =>
      announced.push((JSON.parse(p) as { serial: number }).serial),
    );
  });
  after(async () => {
    await bus.close();
    await db.close();
    await database.drop();
  });

  const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams'))[0]!.n;

  it('stores the conversion as a telegram of its own, committed and announced with its source', async () => {
    const outcome = await ingestTelegram({ db, bus }, eewXml, { fileName: eewFile, receivedTime: received });
    assert.ok(outcome.ok && outcome.converted);
    assert.equal(outcome.converted.serial, outcome.stored.serial + 1);
    assert.deepEqual(outcome.converted.schema, { type: 'eew-information', version: '1.0.0' });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(announced, [outcome.stored.serial, outcome.converted.serial]);

    const [xml, json] = await loadTelegramsAfter(db, 0, 10);
    assert.ok(xml && json);
    assert.equal(json.format, 'json');
    assert.equal(json.id, sha384(json.body), 'id is the SHA-384 of the delivered (gzip) bytes');
    assert.equal(json.compression, 'gzip');
    assert.equal(json.encoding, 'base64');
    assert.equal(json.classification, 'eew.forecast');
    assert.deepEqual(json.conversion, {
      schema: { type: 'eew-information', version: '1.0.0' },
      originalId: xml.id,
    });
    assert.deepEqual({ ...json.head, xml: true }, xml.head);
    assert.equal(json.receivedTime, xml.receivedTime);
    assert.deepEqual(json.xmlReport, xml.xmlReport);
    // The document itself, read from the XML: EventID 20240417231454, serial 1, 豊後水道 M4.2.
    const doc = JSON.parse(gunzipSync(json.body).toString()) as Record<string, unknown> & {
      body: { earthquake: { hypocenter: { name: string }; magnitude: { value: string } } };
    };
    assert.equal(doc._originalId, xml.id);
    assert.deepEqual(doc._schema, { type: 'eew-information', version: '1.0.0' });
    assert.equal(doc.eventId, '20240417231454');
    assert.equal(doc.serialNo, '1');
    assert.equal(doc.body.earthquake.hypocenter.name, '豊後水道');
    assert.equal(doc.body.earthquake.magnitude.value, '4.2');
  });

  it('an early warning that is not final enters its projection under its conversion, once', async () => {
    // Ingested by the test above: EventID 20240417231454, serial 1, not final (stored with the telegram).
    const [, json] = await loadTelegramsAfter(db, 0, 10);
    const reports = () =>
      db.query<{ serial: number; telegram_id: string; serial_no: number; is_last_info: boolean; at: string }>(
        `SELECT serial, telegram_id, serial_no, is_last_info, to_char(received_time AT TIME ZONE 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS.MS') AS at FROM gd_eew_reports WHERE event_id = '20240417231454'`,
      );
    assert.deepEqual(await reports(), [
      {
        serial: json!.serial,
        telegram_id: json!.id,
        serial_no: 1,
        is_last_info: false,
        at: '2024-04-17T14:14:58.000',
      },
    ]);
    const again = await ingestTelegram({ db, bus }, eewXml, {
      fileName: eewFile,
      receivedTime: received + 1,
    });
    assert.ok(again.ok && again.stored.duplicate);
    assert.equal((await reports()).length, 1);
  });

  it('ingesting the same XML again converts nothing and announces nothing', async () => {
    const before = await count();
    announced.length = 0;
    const outcome = await ingestTelegram({ db, bus }, eewXml, {
      fileName: eewFile,
      receivedTime: received + 5,
    });
    assert.ok(outcome.ok && outcome.stored.duplicate && !outcome.converted);
    assert.equal(await count(), before);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(announced, []);
  });

  it('a conversion that fails the schema never fails the XML: stored, reported, nothing half-written', async () => {
    // A VXSE45 whose Body lost its Earthquake and Intensity: valid XML, not a valid conversion.
    const broken = Buffer.from(
      eewXml
        .toString()
        .replace(/<Body([^>]*)>.*<\/Body>/s, '<Body$1></Body>')
        .replace('<Serial>1</Serial>', '<Serial>2</Serial>'),
    );
    const before = await count();
    const outcome = await ingestTelegram({ db, bus }, broken, {
      fileName: eewFile,
      receivedTime: received + 9,
    });
    assert.ok(outcome.ok, 'the XML is accepted');
    assert.equal(outcome.converted, undefined);
    assert.ok(outcome.conversionFailure);
    assert.equal(outcome.conversionFailure.schema.type, 'eew-information');
    assert.match(outcome.conversionFailure.reason, /\S/);
    assert.equal(await count(), before + 1, 'only the XML was stored');
  });

  it('rebuild re-derives conversions idempotently, keeping serials and the ids of unchanged ones', async () => {
    const first = await rebuildConversions(db);
    assert.deepEqual(
      { added: first.added, replaced: first.replaced, unchanged: first.unchanged },
      { added: 0, replaced: 0, unchanged: 1 },
    );
    assert.equal(first.failed.length, 1, 'the broken telegram still fails, and is reported');
    const [, json] = await loadTelegramsAfter(db, 0, 10);
    assert.ok(json);
    // The same document compressed otherwise (as by an earlier release) is unchanged: it keeps its id.
    const recompressed = gzipSync(gunzipSync(json.body), { level: 9 });
    assert.notDeepEqual(recompressed, json.body);
    await db.query(`UPDATE telegrams SET id = $1, body = $2 WHERE serial = $3`, [
      sha384(recompressed),
      recompressed,
      json.serial,
    ]);
    const kept = await rebuildConversions(db);
    assert.deepEqual(
      { added: kept.added, replaced: kept.replaced, unchanged: kept.unchanged },
      { added: 0, replaced: 0, unchanged: 1 },
    );
    assert.equal((await loadTelegramsAfter(db, 0, 10))[1]?.id, sha384(recompressed));
    // A stored conversion that differs from what the converter gives now is replaced in place.
    await db.query(`UPDATE telegrams SET id = $1, body = $2 WHERE serial = $3`, [
      'f'.repeat(96),
      Buffer.from('stale'),
      json.serial,
    ]);
    const second = await rebuildConversions(db);
    assert.equal(second.replaced, 1);
    const [, rebuilt] = await loadTelegramsAfter(db, 0, 10);
    assert.equal(rebuilt?.serial, json.serial);
    assert.equal(rebuilt?.id, json.id);
    // A missing conversion is added with a new serial; a third run changes nothing.
    await db.query('DELETE FROM telegrams WHERE serial = $1', [json.serial]);
    const third = await rebuildConversions(db);
    assert.equal(third.added, 1);
    const fourth = await rebuildConversions(db);
    assert.deepEqual(
      { added: fourth.added, replaced: fourth.replaced, unchanged: fourth.unchanged },
      { added: 0, replaced: 0, unchanged: 1 },
    );
    const ids = (await loadTelegramsAfter(db, 0, 10)).map((t) => t.id);
    assert.equal(new Set(ids).size, ids.length, 'no telegram duplicated');
    assert.ok(ids.includes(json.id));
  });
});
