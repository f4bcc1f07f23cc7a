import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixturesRoot } from '../support/fixtures.ts';
import { readFixture } from './gold.ts';

// The production service's field documentation of eew-information: `hypocenter.depth.value` is a
// string or null, and `condition` (ごく浅い, ７００ｋｍ以上, 不明) appears when the value is 0, 700 or null.
const SAMPLE = 'jma-xml/jma-official-samples/77_01_01_240613_VXSE45.xml';
const WRITTEN =
  '<jmx_eb:Coordinate description="北緯３３．１度　東経１３２．４度　深さ　４０ｋｍ">+33.1+132.4-40000/';

/** The official VXSE45 sample with its hypocentre's coordinate written otherwise. */
function withCoordinate(coordinate: string): string {
  const xml = readFixture(SAMPLE);
  assert.ok(xml.includes(WRITTEN), `${join(fixturesRoot, SAMPLE)} no longer holds the coordinate`);
  return xml.replace(WRITTEN, coordinate);
}

function depthOf(xml: string): unknown {
  const outcome = convertTelegram(xml, 'VXSE45', 'a'.repeat(96));
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  return (outcome.document.body as { earthquake: { hypocenter: { depth: unknown } } }).earthquake.hypocenter
    .depth;
}

test('an EEW hypocentre at ごく浅い keeps that condition with the value 0', () => {
  const xml = withCoordinate(
    '<jmx_eb:Coordinate description="北緯３３．１度　東経１３２．４度　ごく浅い">+33.1+132.4+0/',
  );
  assert.deepEqual(depthOf(xml), { type: '深さ', unit: 'km', value: '0', condition: 'ごく浅い' });
});

test('an EEW hypocentre at ７００ｋｍ以上 keeps that condition with the value 700', () => {
  const xml = withCoordinate(
    '<jmx_eb:Coordinate description="北緯３３．１度　東経１３２．４度　７００ｋｍ以上">+33.1+132.4-700000/',
  );
  assert.deepEqual(depthOf(xml), { type: '深さ', unit: 'km', value: '700', condition: '７００ｋｍ以上' });
});

test('an EEW hypocentre without a depth converts and validates with the value null and 不明', () => {
  const xml = withCoordinate(
    '<jmx_eb:Coordinate description="北緯３３．１度　東経１３２．４度　深さ不明">+33.1+132.4/',
  );
  assert.deepEqual(depthOf(xml), { type: '深さ', unit: 'km', value: null, condition: '不明' });
});

test('an ordinary EEW depth still has no condition', () => {
  assert.deepEqual(depthOf(readFixture(SAMPLE)), { type: '深さ', unit: 'km', value: '40' });
});

test('an early warning whose Body lost its Earthquake is not converted (XML only), not made up', () => {
  const xml = readFixture(SAMPLE).replace(/<Earthquake>.*<\/Earthquake>/s, '');
  const outcome = convertTelegram(xml, 'VXSE45', 'a'.repeat(96));
  assert.ok(outcome && !outcome.ok, 'declined');
  assert.match(outcome.reason, /Body\/Earthquake/);
});
