/**
 * The one check of the Misskey options (src/webhooks/note-options.ts), which the console's form uses
 * and `POST /v2/webhook` is to use: the defaults given explicitly with another format are no choice,
 * a token of spaces is none, a pasted token loses the spaces around it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkNoteOptions } from '../../../src/webhooks/note-options.ts';

test('the Misskey options: required, refused or defaulted by format, all problems at once', () => {
  const none = { token: null, visibility: null, localOnly: false };
  assert.deepEqual(checkNoteOptions({ format: 'discord' }), { ok: true, value: none });
  assert.deepEqual(checkNoteOptions({ format: 'discord', visibility: 'public', localOnly: false }), {
    ok: true,
    value: none,
  });
  assert.deepEqual(checkNoteOptions({ format: 'misskey', token: ' tok\n' }), {
    ok: true,
    value: { token: 'tok', visibility: 'public', localOnly: false },
  });
  assert.deepEqual(
    checkNoteOptions({ format: 'misskey', token: 'tok', visibility: 'followers', localOnly: true }),
    { ok: true, value: { token: 'tok', visibility: 'followers', localOnly: true } },
  );
  assert.deepEqual(checkNoteOptions({ format: 'misskey', token: '   ', visibility: 'everyone' }), {
    ok: false,
    problems: { token: 'missing', visibility: 'unknown' },
  });
  assert.deepEqual(checkNoteOptions({ format: 'misskey', token: 'x'.repeat(513) }), {
    ok: false,
    problems: { token: 'missing' },
  });
  assert.deepEqual(checkNoteOptions({ format: 'slack', token: 't', visibility: 'home', localOnly: true }), {
    ok: false,
    problems: { token: 'otherFormat', visibility: 'otherFormat', localOnly: 'otherFormat' },
  });
});
