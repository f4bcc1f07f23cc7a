// A city code (市町村, 7 digits) in `areas` on real sockets: it selects the earthquake area
// (地震情報／細分区域) the city lies in for earthquake and early-warning telegrams, which name areas
// and not cities, and nothing else (docs/realtime.md "Filters by place and strength"). Each city's
// area is read from JMA's code table in the shared station data, each telegram's codes from its XML.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { cityAreasInCodeTable } from '../support/station-data.ts';
import { FilteredSockets, nextData } from './filtered-sockets.ts';

const SCOPES = ['socket.start', 'eew.get.warning', 'telegram.get.earthquake'];
const CLASSIFICATIONS = ['eew.warning', 'telegram.earthquake'];

const sockets = new FilteredSockets(CLASSIFICATIONS, SCOPES);
before(() => sockets.start());
after(() => sockets.stop());

const KANAZAWA = '1720100';

test(
  'a city receives the early warning and the 震度速報 of its area, not a tsunami of the same number',
  { timeout: 30_000 },
  async () => {
    // 金沢市 lies in 石川県加賀 (391); 391 is also the tsunami forecast area 伊勢・三河湾.
    assert.deepEqual(cityAreasInCodeTable(KANAZAWA), ['391']);
    // The 2024-01-16 能登半島沖 warning (real) warns 石川県加賀 among its 細分区域; JMA's 2010 sample
    // 震度速報 lists 石川県加賀 among its areas; JMA's 2012 tsunami sample names 伊勢・三河湾. None
    // names 金沢市.
    const warningXml = readFileSync(fixture('real', '20240116184225_02245216_VXSE43.xml'), 'utf8');
    assert.match(warningXml, /<Areas codeType="地震情報／細分区域">.*<Code>391<\/Code>/);
    const quickXml = readFileSync(fixture('official', '32-35_01_01_100806_VXSE51.xml'), 'utf8');
    assert.match(quickXml, /<Name>石川県加賀<\/Name>\s*<Code>391<\/Code>/);
    const tsunamiXml = readFileSync(fixture('older', '32-39_11_02_120615_VTSE41.xml'), 'utf8');
    assert.match(tsunamiXml, /<Name>伊勢・三河湾<\/Name><Code>391<\/Code>/);
    for (const xml of [warningXml, quickXml, tsunamiXml]) assert.ok(!xml.includes(KANAZAWA));
    // 南海トラフ地震臨時情報 names no place: it reaches every filter, and marks what came before.
    const nankai = readFileSync(fixture('official', '74_01_02_200512_VYSE50.xml'));

    const kanazawa = await sockets.connect({ areas: [KANAZAWA] });
    const everything = await sockets.connect({});
    const tsunami = await sockets.ingest(Buffer.from(tsunamiXml));
    const warning = await sockets.ingest(Buffer.from(warningXml));
    const quick = await sockets.ingest(Buffer.from(quickXml));
    const alert = await sockets.ingest(nankai);
    for (const id of [tsunami, warning, quick, alert]) assert.equal(await nextData(everything), id);
    for (const id of [warning, quick, alert]) assert.equal(await nextData(kanazawa), id);
    for (const c of [kanazawa, everything]) c.ws.close();
  },
);

test(
  'a city does not select its prefecture: a warning for another area of it passes the city by',
  { timeout: 30_000 },
  async () => {
    // 三次市 lies in 広島県北部 (590). JMA's 2024 豊後水道 sample warns 広島 (9340) for 広島県南西部
    // (592) only: it names Hiroshima (34), not 590.
    const miyoshi = '3420900';
    assert.deepEqual(cityAreasInCodeTable(miyoshi), ['590']);
    const warningXml = readFileSync(fixture('official', '37_01_01_240613_VXSE43.xml'), 'utf8');
    assert.match(warningXml, /<Name>広島県南西部<\/Name><Code>592<\/Code>/);
    assert.ok(!warningXml.includes('<Code>590</Code>') && !warningXml.includes(miyoshi));
    // 南海トラフ地震臨時情報 names no place: it reaches every filter, and marks what came before.
    const nankai = readFileSync(fixture('official', '74_01_01_200512_VYSE50.xml'));

    const city = await sockets.connect({ areas: [miyoshi] });
    const prefecture = await sockets.connect({ areas: ['34'] });
    const warning = await sockets.ingest(Buffer.from(warningXml));
    const alert = await sockets.ingest(nankai);
    assert.equal(await nextData(prefecture), warning);
    assert.equal(await nextData(city), alert);
    for (const c of [city, prefecture]) c.ws.close();
  },
);
