import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('weather-landslide');
fixtureSchemaTests(['VXWW50']);

test('VXWW50 神奈川県 (2025 sample): three municipalities warned, the others なし, both offices with contacts', () => {
  const outcome = convertFixture(fixture('official', '17_04_01_250630_VXWW50.xml'), 'VXWW50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    target: unknown;
    cities: { code: string; name: string; kinds: { code: string; name: string; status: string }[] }[];
    offices: unknown;
  };
  assert.deepEqual(body.target, { code: '140000', name: '神奈川県' });
  assert.equal(body.cities.length, 35);
  assert.deepEqual(body.cities[0], {
    code: '1410011',
    name: '横浜市北部',
    kinds: [{ code: '0', name: 'なし', status: 'なし' }],
  });
  const warned = body.cities.filter((c) => c.kinds[0]!.code === '3');
  assert.deepEqual(warned, [
    { code: '1420600', name: '小田原市', kinds: [{ code: '3', name: '警戒', status: '発表' }] },
    { code: '1438300', name: '真鶴町', kinds: [{ code: '3', name: '警戒', status: '発表' }] },
    { code: '1438400', name: '湯河原町', kinds: [{ code: '3', name: '警戒', status: '発表' }] },
  ]);
  assert.deepEqual(body.offices, [
    { type: '都道府県', name: '神奈川県', contact: '神奈川県（補足情報担当）' },
    { type: '気象庁', name: '横浜地方気象台', contact: '横浜地方気象台（気象関係）' },
  ]);
});
