import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '../../src/telegrams/classify.ts';

describe('classify', () => {
  it('listed codes', () => {
    assert.equal(classify('VXSE45', true), 'eew.forecast');
    assert.equal(classify('VXSE43', true), 'eew.warning');
    assert.equal(classify('VXSE47', true), 'eew.realtime');
    assert.equal(classify('VXSE53', true), 'telegram.earthquake');
    assert.equal(classify('VPJP40', true), 'telegram.lightning');
    assert.equal(classify('VPZU54', true), 'telegram.scheduled');
    assert.equal(classify('VZSF61', true), 'telegram.forecast');
  });

  it('numbered series written as ii', () => {
    assert.equal(classify('VXKOii', true), 'telegram.weather');
    assert.equal(classify('VXKO61', true), 'telegram.weather');
    assert.equal(classify('VFSV50', true), 'telegram.volcano');
    assert.equal(classify('VPTW63', true), 'telegram.weather');
  });

  it('family rules for codes not listed', () => {
    assert.equal(classify('VFVO99', true), 'telegram.volcano');
    assert.equal(classify('VZVO41', true), 'telegram.volcano');
    assert.equal(classify('VYSE99', true), 'telegram.earthquake');
    assert.equal(classify('VPFD99', true), 'telegram.forecast');
    assert.equal(classify('VPZK99', true), 'telegram.forecast');
    assert.equal(classify('VZSA70', true), 'telegram.forecast');
    assert.equal(classify('VGSK99', true), 'telegram.observation');
    assert.equal(classify('VPCY99', true), 'telegram.scheduled');
    assert.equal(classify('VPSG50', true), 'telegram.weather');
    assert.equal(classify('VMXX50', true), 'telegram.weather');
    assert.equal(classify('VXWW99', true), 'telegram.weather');
    assert.equal(classify('ABCD12', true), null);
  });

  it('non-XML', () => {
    assert.equal(classify('SMJP01', false), 'telegram.observation');
    assert.equal(classify('WEPA60', false), 'telegram.earthquake');
    assert.equal(classify('WWJP27', false), 'telegram.scheduled');
  });
});
