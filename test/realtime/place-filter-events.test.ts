// The filters by place and strength on real sockets, for telegrams whose places a filter reads
// beyond their forecast (docs/realtime.md "Filters by place and strength").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { FilteredSockets, nextData } from './filtered-sockets.ts';

const SCOPES = ['socket.start', 'eew.get.forecast', 'telegram.get.earthquake', 'telegram.get.volcano'];
const CLASSIFICATIONS = ['eew.forecast', 'telegram.earthquake', 'telegram.volcano'];

const sockets = new FilteredSockets(CLASSIFICATIONS, SCOPES);
before(() => sockets.start());
after(() => sockets.stop());
const connect = (filters: Record<string, unknown>) => sockets.connect(filters);
const ingest = (raw: Buffer) => sockets.ingest(raw);

test('an early warning reaches the places its headline warns', { timeout: 30_000 }, async () => {
  // 第6報 of JMA's 豊後水道 sample, the first of its event here: its headline warns 広島 (9340)
  // and 広島県南西部 (592, Hiroshima 34); its forecast lists neither.
  const hiroshima = await connect({ areas: ['34'] });
  const southwest = await connect({ areas: ['592'] });
  const everything = await connect({});
  const warning = await ingest(readFileSync(fixture('rest', '77_01_06_240613_VXSE45.xml')));
  for (const client of [everything, hiroshima, southwest]) assert.equal(await nextData(client), warning);
  for (const c of [hiroshima, southwest, everything]) c.ws.close();
});

test(
  'a tsunami event joined by a later earthquake ends for every coast it reached',
  { timeout: 30_000 },
  async () => {
    // JMA's 2015 薩摩半島西方沖 sample: the first telegram (EventID 20151114055157) names 高知県
    // (610, Kochi 39) among its forecasts; the advisory is lifted by a telegram whose EventID adds
    // a later earthquake's ("20151114055157 20151114061750") and names the lifted coasts only.
    const kochi = await connect({ areas: ['39'] });
    const everything = await connect({});
    const first = await ingest(readFileSync(fixture('official', '38-39_02_01_250206_VTSE41.xml')));
    const lifted = readFileSync(fixture('rest', '38-39_02_04_250206_VTSE41.xml'), 'utf8');
    assert.ok(lifted.includes('<EventID>20151114055157 20151114061750</EventID>'));
    assert.ok(!lifted.includes('<Code>610</Code>'));
    const end = await ingest(Buffer.from(lifted));
    for (const client of [everything, kochi]) {
      assert.equal(await nextData(client), first);
      assert.equal(await nextData(client), end);
    }
    for (const c of [kochi, everything]) c.ws.close();
  },
);

test(
  'the cancellation of a volcano telegram reaches those who received it',
  { timeout: 30_000 },
  async () => {
    // 御嶽山 噴火速報 (Nagano 20, Gifu 21) and its cancellation (取消), which names no area; one
    // EventID (20140927120000_312).
    const nagano = await connect({ areas: ['20'] });
    const everything = await connect({});
    const eruption = await ingest(readFileSync(fixture('official', '67_01_01_140927_VFVO56.xml')));
    const cancellation = await ingest(readFileSync(fixture('official', '67_01_04_140927_VFVO56.xml')));
    for (const client of [everything, nagano]) {
      assert.equal(await nextData(client), eruption);
      assert.equal(await nextData(client), cancellation);
    }
    for (const c of [nagano, everything]) c.ws.close();
  },
);

test(
  'a telegram about no place in particular reaches every filter by place',
  { timeout: 30_000 },
  async () => {
    // 南海トラフ地震臨時情報 (VYSE50) names no area: a Shizuoka (22) subscriber, on the coast it is
    // about, must not lose it. A report of an earthquake elsewhere still does not reach it.
    const shizuoka = await connect({ areas: ['22'] });
    const nankai = readFileSync(fixture('official', '74_01_01_200512_VYSE50.xml'), 'utf8');
    assert.ok(!nankai.includes('<Area>'));
    const elsewhere = await ingest(readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml')));
    const alert = await ingest(Buffer.from(nankai));
    assert.notEqual(elsewhere, alert);
    assert.equal(await nextData(shizuoka), alert);
    shizuoka.ws.close();
  },
);
