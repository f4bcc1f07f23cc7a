import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesRoot } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairs } from './gold.ts';

// The one official sample (a real 2021 telegram) has no XML in the fixtures (PAIRS.md), so the
// checks below are written from the official JMA sample XML.
test('earthquake-hypocenter-update has no gold pair to compare with', () => {
  assert.deepEqual(goldPairs('earthquake-hypocenter-update'), []);
});

fixtureSchemaTests(['VXSE61']);

const OFFICIAL = 'jma-xml/jma-official-samples';

function convert(relative: string) {
  const outcome = convertFixture(join(fixturesRoot, relative), 'VXSE61');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return outcome.document as unknown as Record<string, unknown>;
}

test('VXSE61 (official 2009-08-11 駿河湾): the hypocentre in degrees and minutes, not in degrees', () => {
  const doc = convert(`${OFFICIAL}/32-35_07_09_240613_VXSE61.xml`);
  assert.deepEqual(doc._schema, { type: 'earthquake-hypocenter-update', version: '1.0.0' });
  assert.equal(doc.infoKind, '震源要素更新のお知らせ');
  assert.equal(doc.serialNo, null);
  assert.deepEqual(doc.body, {
    earthquake: {
      originTime: '2009-08-11T05:07:00+09:00',
      arrivalTime: '2009-08-11T05:07:00+09:00',
      hypocenter: {
        name: '駿河湾',
        code: '485',
        coordinate: {
          latitude: { text: "34˚47.1'N", value: '34.7850' },
          longitude: { text: "138˚29.9'E", value: '138.4983' },
          height: { type: '高さ', value: '-23000', unit: 'm' },
        },
        depth: { type: '深さ', unit: 'km', value: '23' },
      },
      magnitude: { type: 'マグニチュード', unit: 'Mj', value: '6.5' },
    },
    comments: { free: '度単位の震源要素は、津波情報等を引き続き発表する場合に使用されます。' },
  });
});

test('VXSE61 (official 2008-06-14 岩手県内陸南部): depth from the degrees-minutes point (8 km, not 10 km)', () => {
  const doc = convert(`${OFFICIAL}/32-35_06_09_240613_VXSE61.xml`);
  const earthquake = (doc.body as { earthquake: { hypocenter: Record<string, unknown> } }).earthquake;
  assert.deepEqual(earthquake.hypocenter.depth, { type: '深さ', unit: 'km', value: '8' });
  assert.deepEqual(earthquake.hypocenter.coordinate, {
    latitude: { text: "39˚01.7'N", value: '39.0283' },
    longitude: { text: "140˚52.8'E", value: '140.8800' },
    height: { type: '高さ', value: '-8000', unit: 'm' },
  });
});

test('VXSE61 取消: only the text', () => {
  const doc = convert(`${OFFICIAL}/32-35_06_10_100915_VXSE61.xml`);
  assert.equal(doc.infoType, '取消');
  assert.deepEqual(doc.body, { text: '先ほどの、顕著な地震の震源要素更新のお知らせを取り消します。' });
});
