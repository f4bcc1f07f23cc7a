import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TsunamiInformation, VolcanoInformation } from '@dmdata/telegram-json-types';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';

/**
 * Forms that JMA's XML schemas and manuals allow but no shared sample shows: each test edits a real
 * telegram into that form and expects what the XML says, as the production service's field
 * definitions (pdmdss/dmdata.jp, docs/reference/conversion/json/schema/) write it.
 */
const SAMPLES = join(jmaXmlRoot, 'jma-official-samples');

/** A real sample with one edit applied (the edit must apply: a silent no-op would test nothing). */
function edited(file: string, from: string | RegExp, to: string): string {
  const xml = readFileSync(join(SAMPLES, file), 'utf8');
  const out = xml.replace(from, to);
  assert.notEqual(out, xml, `the edit of ${file} did not apply`);
  return out;
}

function converted<T>(xml: string, type: string): T {
  const outcome = convertTelegram(xml, type, 'a'.repeat(96));
  assert.ok(outcome, `${type}: declined`);
  assert.ok(outcome.ok, `${type}: ${outcome.ok ? '' : outcome.reason}`);
  return outcome.document as unknown as T;
}

type Vtse52 = TsunamiInformation.v1_1_0.PublicVTSE52;
type Vfvo50 = VolcanoInformation.v1_0_0.PublicVFVO50;
type Vfvo52 = VolcanoInformation.v1_0_0.PublicVFVO52;
type Vfvo56 = VolcanoInformation.v1_0_0.PublicVFVO56;

test('VTSE52: a coast whose estimated arrival is still ahead (ArrivalTime without Condition)', () => {
  // JMA writes Condition 早いところでは既に津波到達と推定 only when the coast may already have been
  // reached before the estimated time; production: arrivalTime always, condition only then.
  const xml = edited(
    '61_11_01_250206_VTSE52.xml',
    '<Condition>早いところでは既に津波到達と推定</Condition>',
    '',
  );
  const [estimation] = converted<Vtse52>(xml, 'VTSE52').body.tsunami.estimations;
  assert.deepEqual(estimation?.firstHeight, { arrivalTime: '2011-03-11T14:55:00+09:00' });
});

test('VFVO50: a volcano whose Area has no Coordinate gets the unknown coordinate', () => {
  // jmx_volc's Area makes Coordinate optional; production's target always has a coordinate, and
  // the Coordinate component writes a point that is not given as {condition: 不明}.
  const xml = edited('45_01_01_200522_VFVO50.xml', /<Coordinate description="[^"]*">[^<]*<\/Coordinate>/, '');
  const { target } = converted<Vfvo50>(xml, 'VFVO50').body;
  assert.deepEqual(target.coordinate, { condition: '不明' });
  assert.equal(target.name, '浅間山');
});

test('VFVO52: a volcano whose Area has no Coordinate gets the unknown coordinate', () => {
  const xml = edited('43_01_01_200522_VFVO52.xml', /<Coordinate description="[^"]*">[^<]*<\/Coordinate>/, '');
  const { target } = converted<Vfvo52>(xml, 'VFVO52').body;
  assert.deepEqual(target.coordinate, { condition: '不明' });
  assert.equal(target.name, '浅間山');
});

test('VFVO56: a volcano Area with a Coordinate still converts; the target is code, name and kind', () => {
  // Production's 噴火速報 target has no coordinate field (its sample: code, name, kind).
  const xml = edited(
    '67_01_01_140927_VFVO56.xml',
    /(<VolcanoInfo type="噴火速報">[\s\S]*?<Code>312<\/Code>)/,
    '$1\n<Coordinate description="北緯３５度５３．６３分　東経１３７度２８．８０分　標高３０６７ｍ">+3553.63+13728.80+3067/</Coordinate>',
  );
  assert.deepEqual(converted<Vfvo56>(xml, 'VFVO56').body.target, {
    code: '312',
    name: '御嶽山',
    kind: { code: '52', name: '噴火' },
  });
});
