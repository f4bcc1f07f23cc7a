import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCursor, encodeCursor } from '../../src/api/cursor.ts';
import { HttpError } from '../../src/http/errors.ts';

function refusal(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof HttpError);
    return { status: e.statusCode, message: e.message };
  }
  assert.fail('expected a refusal');
}

test('a cursor decodes to its direction and position in its own list', () => {
  assert.deepEqual(decodeCursor('socket', encodeCursor('socket', 'older', 42), 'cursorToken'), {
    direction: 'older',
    serial: 42,
  });
  assert.deepEqual(decodeCursor('v2', encodeCursor('v2', 'newer', 7), 'cursorToken'), {
    direction: 'newer',
    serial: 7,
  });
});

test('a cursor of another list, a direction not allowed or a token that does not decode is a 400 of its parameter', () => {
  const expected = { status: 400, message: 'Unexpected data of search query `cursorToken`.' };
  const older = encodeCursor('v2', 'older', 1);
  assert.deepEqual(
    refusal(() => decodeCursor('socket', older, 'cursorToken')),
    expected,
  );
  assert.deepEqual(
    refusal(() => decodeCursor('v2', encodeCursor('v2', 'newer', 1), 'cursorToken', ['older'])),
    expected,
  );
  for (const junk of ['', 'zzz', '!!!!', 'x'.repeat(101)])
    assert.deepEqual(
      refusal(() => decodeCursor('v2', junk, 'cursorToken')),
      expected,
      junk,
    );
});
