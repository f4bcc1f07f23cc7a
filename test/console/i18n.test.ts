import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { preferredLanguage } from '../../src/console/i18n.ts';

describe('page language from Accept-Language', () => {
  it('takes the supported language of highest quality, in header order on ties', () => {
    assert.equal(preferredLanguage('ja,en;q=0.8'), 'ja');
    assert.equal(preferredLanguage('en-US,en;q=0.9,ja;q=0.8'), 'en');
    assert.equal(preferredLanguage('fr;q=1, ja-JP;q=0.5, en;q=0.4'), 'ja');
    assert.equal(preferredLanguage('de, fr'), undefined);
    assert.equal(preferredLanguage('ja;q=0, en;q=0.1'), 'en');
  });
  it('ignores what it cannot read', () => {
    assert.equal(preferredLanguage(undefined), undefined);
    assert.equal(preferredLanguage(''), undefined);
    assert.equal(preferredLanguage('ja;q=abc'), 'ja');
    assert.equal(preferredLanguage('x'.repeat(2000)), undefined);
  });
});
