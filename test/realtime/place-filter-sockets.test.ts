import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { FilteredSockets, nextData } from './filtered-sockets.ts';

const SCOPES = ['socket.start', 'socket.list', 'eew.get.warning', 'telegram.get.weather'];
const CLASSIFICATIONS = ['eew.warning', 'telegram.weather'];

const sockets = new FilteredSockets(CLASSIFICATIONS, SCOPES);
before(() => sockets.start());
after(() => sockets.stop());
const connect = (filters: Record<string, unknown>) => sockets.connect(filters);
const ingest = (raw: Buffer) => sockets.ingest(raw);

test(
  'filtered sockets get only the telegrams of their places and strength; a cancellation follows its warning',
  { timeout: 30_000 },
  async () => {
    const ishikawa = await connect({ areas: ['17'] });
    const noto = await connect({ areas: ['390'], minIntensity: '5-' });
    const tokyo = await connect({ areas: ['13'] });
    const strong = await connect({ minIntensity: '5+' });
    const everything = await connect({});

    // 石川県能登 (390, Ishikawa 17), forecast up to 5-.
    const warning = await ingest(readFileSync(fixture('real', '20240116184225_02245216_VXSE43.xml')));
    // The cancellation of that warning: JMA's sample cancellation, of the same event. It names no area.
    const sample = readFileSync(fixture('official', '37_01_03_240613_VXSE43.xml'), 'utf8');
    assert.ok(sample.includes('<EventID>20240417231454</EventID>') && sample.includes('取消'));
    const cancellation = await ingest(
      Buffer.from(
        sample.replaceAll('20240417231454', '20240116184216').replaceAll('2024-04-17T', '2024-01-16T'),
      ),
    );
    // Tokyo's warnings (areas 13…): not an earthquake, so minIntensity does not judge it.
    const weather = await ingest(readFileSync(fixture('official', '15_14_01_170216_VPWW53.xml')));

    for (const client of [ishikawa, noto, everything]) {
      assert.equal(await nextData(client), warning);
      assert.equal(await nextData(client), cancellation);
    }
    assert.equal(await nextData(everything), weather);
    assert.equal(await nextData(tokyo), weather);
    assert.equal(await nextData(strong), weather);
    // Delivered to every group in one pass: what Ishikawa's filters dropped is not coming.
    assert.equal(ishikawa.pending, 0);
    assert.equal(noto.pending, 0);
    for (const c of [ishikawa, noto, tokyo, strong, everything]) c.ws.close();
  },
);

test('bad areas or minIntensity: 400 naming the field, no session started', async () => {
  const key = await sockets.key();
  const cases: [Record<string, unknown>, string][] = [
    [{ areas: ['48'] }, 'areas'],
    [{ areas: ['ishikawa'] }, 'areas'],
    [{ areas: '17' }, 'areas'],
    [{ areas: Array.from({ length: 101 }, (_, i) => String(100 + i)) }, 'areas'],
    [{ minIntensity: '5' }, 'minIntensity'],
    [{ minIntensity: 5 }, 'minIntensity'],
  ];
  for (const [filters, field] of cases) {
    const r = await sockets.request(key, '/v2/socket', { classifications: CLASSIFICATIONS, ...filters });
    assert.equal(r.status, 400, JSON.stringify(filters));
    assert.equal(r.json.error.code, 400);
    assert.match(r.json.error.message, new RegExp(`\`${field}\``), JSON.stringify(r.json));
  }
  const list = await sockets.request(key, '/v2/socket');
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.items, []);
});
