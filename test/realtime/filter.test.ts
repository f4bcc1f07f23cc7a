import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliveryFilter } from '../../src/realtime/filter.ts';
import { compileFilter, matches } from '../../src/realtime/filter.ts';
import { record } from '../support/realtime.ts';

const base: DeliveryFilter = {
  classifications: ['telegram.earthquake', 'eew.forecast'],
  types: null,
  test: 'no',
  formatMode: 'raw',
};
const f = (over: Partial<DeliveryFilter>) => compileFilter({ ...base, ...over });

test('classifications select telegrams', () => {
  assert.equal(matches(f({}), record({ classification: 'telegram.earthquake' })), true);
  assert.equal(matches(f({}), record({ classification: 'eew.forecast', type: 'VXSE45' })), true);
  assert.equal(matches(f({}), record({ classification: 'telegram.weather', type: 'VPWW53' })), false);
});

test('types: exact codes include, !CODE excludes', () => {
  assert.equal(matches(f({ types: ['VXSE51'] }), record({ type: 'VXSE51' })), true);
  assert.equal(matches(f({ types: ['VXSE51'] }), record({ type: 'VXSE53' })), false);
  assert.equal(matches(f({ types: ['!VXSE51'] }), record({ type: 'VXSE51' })), false);
  assert.equal(matches(f({ types: ['!VXSE51'] }), record({ type: 'VXSE53' })), true);
  assert.equal(matches(f({ types: ['VXSE53', '!VXSE53'] }), record({ type: 'VXSE53' })), false);
  assert.equal(matches(f({ types: ['VXSE5'] }), record({ type: 'VXSE53' })), false, 'codes are exact');
});

test('XML test telegrams only with test=including; non-XML test telegrams always', () => {
  const xmlTest = record({ test: true });
  assert.equal(matches(f({}), xmlTest), false);
  assert.equal(matches(f({ test: 'including' }), xmlTest), true);
  const anTest = record({ test: true, format: 'a/n', compression: null, encoding: 'utf-8' });
  assert.equal(matches(f({}), anTest), true);
});

test('the JSON conversion of a test or training telegram is a known test: dropped unless test=including', () => {
  const jsonTest = record({ test: true, format: 'json' });
  assert.equal(matches(f({ formatMode: 'json' }), jsonTest), false);
  assert.equal(matches(f({ formatMode: 'json', test: 'including' }), jsonTest), true);
  assert.equal(matches(f({ formatMode: 'json' }), record({ test: false, format: 'json' })), true);
});

test('formatMode: raw gets xml, a/n, binary; json gets a/n, binary, json', () => {
  const xml = record({});
  const json = record({ format: 'json' });
  const bin = record({ format: 'binary' });
  assert.equal(matches(f({}), xml), true);
  assert.equal(matches(f({}), json), false);
  assert.equal(matches(f({}), bin), true);
  assert.equal(matches(f({ formatMode: 'json' }), xml), false);
  assert.equal(matches(f({ formatMode: 'json' }), json), true);
  assert.equal(matches(f({ formatMode: 'json' }), bin), true);
});

test('equal filters share a group key whatever the order of their lists', () => {
  const a = f({ classifications: ['eew.forecast', 'telegram.earthquake'], types: ['VXSE53', '!VXSE51'] });
  const b = f({ classifications: ['telegram.earthquake', 'eew.forecast'], types: ['!VXSE51', 'VXSE53'] });
  assert.equal(a.key, b.key);
  assert.notEqual(a.key, f({ types: ['VXSE53'] }).key);
  assert.notEqual(a.key, f({ ...a.filter, test: 'including' }).key);
  assert.notEqual(f({}).key, f({ formatMode: 'json' }).key);
});

test('areas: a telegram passes when its facts name one of the codes; without facts it names none', () => {
  const ishikawa = record({ type: 'VXSE43', classification: 'eew.warning' });
  ishikawa.facts = { kind: 'eew', areas: ['17', '390', '9170'], maxIntensity: '5-', event: 'eew:1' };
  const eew = { classifications: ['eew.warning'] };
  assert.equal(matches(f({ ...eew, areas: ['17'] }), ishikawa), true);
  assert.equal(matches(f({ ...eew, areas: ['13', '390'] }), ishikawa), true);
  assert.equal(matches(f({ ...eew, areas: ['13'] }), ishikawa), false);
  assert.equal(matches(f({ ...eew, areas: [] }), ishikawa), true);
  const an = record({ format: 'a/n' });
  assert.equal(matches(f({ areas: ['17'] }), an), false);
  assert.equal(matches(f({}), an), true);
});

test('minIntensity judges earthquake and early-warning telegrams only; none below it, nor without one', () => {
  const quake = (maxIntensity?: '4' | '5-' | '5+') => {
    const r = record({});
    r.facts = { kind: 'earthquake', areas: ['17'], ...(maxIntensity ? { maxIntensity } : {}) };
    return r;
  };
  assert.equal(matches(f({ minIntensity: '5-' }), quake('5-')), true);
  assert.equal(matches(f({ minIntensity: '5-' }), quake('5+')), true);
  assert.equal(matches(f({ minIntensity: '5-' }), quake('4')), false);
  assert.equal(matches(f({ minIntensity: '1' }), quake()), false);
  const tsunami = record({ type: 'VTSE41' });
  tsunami.facts = { kind: 'tsunami', areas: ['47', '802'] };
  assert.equal(matches(f({ minIntensity: '7' }), tsunami), true);
  assert.equal(matches(f({ minIntensity: '7', areas: ['47'] }), tsunami), true);
  assert.equal(matches(f({ minIntensity: '7', areas: ['13'] }), tsunami), false);
});

test('equal filters by place and strength share a group key; different ones do not', () => {
  const key = (over: Partial<DeliveryFilter>) => f(over).key;
  assert.equal(
    key({ areas: ['390', '17'], minIntensity: '4' }),
    key({ areas: ['17', '390', '17'], minIntensity: '4' }),
  );
  assert.equal(key({ areas: [], minIntensity: null }), key({}));
  assert.notEqual(key({ areas: ['17'] }), key({}));
  assert.notEqual(key({ areas: ['17'] }), key({ areas: ['13'] }));
  assert.notEqual(key({ minIntensity: '4' }), key({ minIntensity: '5-' }));
  assert.notEqual(key({ minIntensity: '4' }), key({}));
});
