/* eslint-disable @typescript-eslint/no-explicit-any -- WebSocket messages are inspected loosely */
/**
 * A JSON-mode socket gets the cancellation (取消) of a weather telegram it got as JSON: without it the
 * client keeps showing what JMA withdrew (docs/conversion.md "Cancellations").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { fixture } from '../support/fixtures.ts';
import type { TestClient } from '../support/realtime.ts';
import { FilteredSockets } from './filtered-sockets.ts';

const sockets = new FilteredSockets(['telegram.weather'], ['socket.start', 'telegram.get.weather']);
before(() => sockets.start());
after(() => sockets.stop());

/** Every `data` message (pings answered) up to the one of `lastType`, with its JSON document decoded. */
async function documentsUntil(
  client: TestClient,
  lastType: string,
): Promise<{ message: any; document: any }[]> {
  const got: { message: any; document: any }[] = [];
  for (;;) {
    const message = await client.next<any>();
    if (message.type === 'ping') client.send({ type: 'pong', pingId: message.pingId });
    if (message.type !== 'data') continue;
    assert.equal(message.format, 'json');
    const bytes = Buffer.from(message.body, 'base64');
    got.push({ message, document: JSON.parse(gunzipSync(bytes).toString('utf8')) });
    if (message.head.type === lastType) return got;
  }
}

const cases = [
  // 竜巻注意情報 京都府 and 土砂災害警戒情報 福岡県: their schemas' package has no 取消.
  {
    file: '19_06_01_140425_VPHW51.xml',
    type: 'VPHW51',
    schema: 'weather-tornado',
    title: '京都府竜巻注意情報',
    after: '22_01_01_100514_VPFJ50.xml',
  },
  {
    file: '17_01_01_190529_VXWW50.xml',
    type: 'VXWW50',
    schema: 'weather-landslide',
    title: '福岡県土砂災害警戒情報',
    after: '20_02_01_160628_VPZJ50.xml',
  },
  // 関東甲信地方気象解説情報: weather-commentary, whose package lacks 取消 too.
  {
    file: '84_01_01_241226_VPCJ51.xml',
    type: 'VPCJ51',
    schema: 'weather-commentary',
    title: '関東甲信地方気象解説情報（強い冬型・大雪）',
    after: '21_02_01_160628_VPCJ50.xml',
  },
];

for (const { file, type, schema, title, after: sentinel } of cases) {
  test(`a JSON-mode socket gets the ${type} (${schema}) and then its cancellation, as JSON`, async () => {
    const client = await sockets.connect({ formatMode: 'json' });
    const xml = readFileSync(fixture('official', file), 'utf8');
    const cancellation = xml.replace('<InfoType>発表</InfoType>', '<InfoType>取消</InfoType>');
    assert.notEqual(cancellation, xml);
    await sockets.ingest(Buffer.from(xml));
    await sockets.ingest(Buffer.from(cancellation));
    // Another weather telegram after them: what has not come before it is not coming.
    const last = readFileSync(fixture('official', sentinel), 'utf8');
    await sockets.ingest(Buffer.from(last));

    const received = await documentsUntil(client, /_([A-Z0-9]+)\.xml$/.exec(sentinel)![1]!);
    assert.equal(
      received.length,
      3,
      received.map((r) => `${r.message.head.type} ${r.document.infoType}`).join(),
    );
    const [issued, withdrawn] = received as [
      { message: any; document: any },
      { message: any; document: any },
    ];
    for (const { message, document } of [issued, withdrawn]) {
      assert.equal(message.head.type, type);
      assert.equal(message.schema.type, schema);
      assert.equal(document._schema.type, schema);
      assert.equal(document.title, title);
    }
    assert.equal(issued.document.infoType, '発表');
    assert.equal(withdrawn.document.infoType, '取消');
    assert.deepEqual(
      withdrawn.document.body,
      issued.document.body,
      'the body JMA repeats in its cancellation',
    );
    client.ws.close();
  });
}
