import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { sharedBodyParser } from '../../src/http/shared-body.ts';
import { SharedBuffers } from '../../src/telegrams/shared-buffers.ts';
import { waitFor } from '../support/wait.ts';

/** Runs the parser over `chunks` sent on a stream with these headers: the body, or the error. */
function parse(
  chunks: Buffer[],
  headers: Record<string, string>,
  {
    limit = 1000,
    sharedFrom = 100,
    fail,
    buffers = new SharedBuffers(),
  }: { limit?: number; sharedFrom?: number; fail?: Error; buffers?: SharedBuffers } = {},
) {
  const stream = Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
  const result = new Promise<{ err: (Error & { code?: string; statusCode?: number }) | null; body?: Buffer }>(
    (resolve) =>
      sharedBodyParser(limit, sharedFrom, buffers)({} as FastifyRequest, stream, (err, body) =>
        resolve({ err, body }),
      ),
  );
  for (const chunk of chunks) stream.write(chunk);
  if (fail) stream.destroy(fail);
  else stream.end();
  return result;
}

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe('a raw body read by sharedBodyParser', () => {
  it('is the bytes sent, with or without a Content-Length, over shared memory from the threshold on', async () => {
    const chunks = [bytes(40, 1), bytes(50, 2), bytes(30, 3)];
    const whole = Buffer.concat(chunks);
    for (const headers of [{ 'content-length': '120' }, {}] as Record<string, string>[]) {
      const { err, body } = await parse(chunks, headers);
      assert.equal(err, null);
      assert.ok(body!.equals(whole));
      assert.ok(body!.buffer instanceof SharedArrayBuffer, 'a body of 120 bytes, threshold 100');
    }
    const small = await parse([bytes(60, 4)], { 'content-length': '60' });
    assert.ok(small.body!.equals(bytes(60, 4)));
    assert.ok(!(small.body!.buffer instanceof SharedArrayBuffer), 'below the threshold');
    const empty = await parse([], {});
    assert.equal(empty.body!.length, 0);
  });

  it('over the limit is 413: at once when declared, while streaming when not', async () => {
    const declared = await parse([], { 'content-length': '1001' });
    assert.equal(declared.err?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
    assert.equal(declared.err?.statusCode, 413);
    const streamed = await parse([bytes(600, 1), bytes(401, 2)], {});
    assert.equal(streamed.err?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
    const atLimit = await parse([bytes(600, 1), bytes(400, 2)], {});
    assert.equal(atLimit.body!.length, 1000);
  });

  it('that disagrees with its Content-Length is 400, whichever way', async () => {
    for (const [sent, declared] of [
      [[bytes(50, 1), bytes(51, 1)], '100'],
      [[bytes(99, 1)], '100'],
    ] as const) {
      const { err } = await parse([...sent], { 'content-length': declared });
      assert.equal(err?.code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', `${sent.length} chunks for ${declared}`);
      assert.equal(err?.statusCode, 400);
    }
  });

  it('cut off by a stream error is a 400 with that error', async () => {
    const { err } = await parse([bytes(10, 1)], { 'content-length': '100' }, { fail: new Error('aborted') });
    assert.equal(err?.message, 'aborted');
    assert.equal(err?.statusCode, 400);
  });

  it('refused after its memory was taken gives that memory back; a body read is kept until given back', async () => {
    const buffers = new SharedBuffers();
    const cut = await parse(
      [bytes(150, 1)],
      { 'content-length': '200' },
      { fail: new Error('aborted'), buffers },
    );
    assert.equal(cut.err?.message, 'aborted');
    const long = await parse([bytes(150, 1), bytes(100, 2)], { 'content-length': '200' }, { buffers });
    assert.equal(long.err?.code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH');
    assert.equal(buffers.keptIdle, 64 * 1024, 'one buffer, given back twice over, is kept once');
    const read = await parse([bytes(200, 3)], { 'content-length': '200' }, { buffers });
    assert.ok(read.body!.equals(bytes(200, 3)));
    assert.equal(buffers.keptIdle, 0, 'the body read holds it');
  });
});

describe('shared upload buffers', () => {
  it('lend memory again once given back: same memory, exactly the size asked, in power-of-two classes', () => {
    const buffers = new SharedBuffers();
    const first = buffers.take(3_000_000);
    assert.equal(first.length, 3_000_000);
    assert.equal(first.buffer.byteLength, 4 * 1024 * 1024);
    first.fill(7);
    buffers.giveBack(first);
    assert.equal(buffers.keptIdle, 4 * 1024 * 1024);
    const second = buffers.take(2_500_000);
    assert.equal(second.buffer, first.buffer, 'the same class reuses it');
    assert.equal(second.length, 2_500_000);
    assert.equal(buffers.keptIdle, 0);
    const other = buffers.take(5_000_000);
    assert.notEqual(other.buffer, first.buffer, 'another class does not');
    assert.equal(other.buffer.byteLength, 8 * 1024 * 1024);
  });

  it('keep no more idle memory than their bound, and ignore what they did not lend or got back already', () => {
    const buffers = new SharedBuffers(8 * 1024 * 1024);
    const lent = [buffers.take(4_000_000), buffers.take(4_000_000), buffers.take(4_000_000)];
    for (const b of lent) buffers.giveBack(b);
    assert.equal(buffers.keptIdle, 8 * 1024 * 1024, 'two of three kept');
    buffers.giveBack(lent[0]!);
    buffers.giveBack(Buffer.from(new SharedArrayBuffer(1024 * 1024)));
    buffers.giveBack(Buffer.alloc(1024 * 1024));
    assert.equal(buffers.keptIdle, 8 * 1024 * 1024);
    const again = [buffers.take(4_000_000), buffers.take(4_000_000), buffers.take(4_000_000)];
    assert.equal(new Set(again.map((b) => b.buffer)).size, 3, 'each lent once at a time');
  });

  it('leave their idle memory to the collector once none was taken for a whole interval', async () => {
    const interval = 500;
    const buffers = new SharedBuffers(32 * 1024 * 1024, interval);
    const first = buffers.take(1_000_000);
    buffers.giveBack(first);
    assert.equal(buffers.keptIdle, 1024 * 1024);
    // Taken and given back every 20 ms across more than two intervals: the same memory each time.
    const busyUntil = Date.now() + 2.5 * interval;
    while (Date.now() < busyUntil) {
      await sleep(20);
      const taken = buffers.take(1_000_000);
      assert.equal(taken.buffer, first.buffer, 'kept while buffers are taken');
      buffers.giveBack(taken);
    }
    const quietFrom = Date.now();
    await waitFor(() => buffers.keptIdle === 0, {
      timeout: 4 * interval,
      interval: 5,
      message: 'the release',
    });
    // Released at the second tick after the last take: the first still saw it taken.
    const quietFor = Date.now() - quietFrom;
    assert.ok(quietFor >= interval - 10, `released ${quietFor} ms after the last take`);
    // Lending goes on as before, from fresh memory.
    const again = buffers.take(1_000_000);
    assert.notEqual(again.buffer, first.buffer);
    buffers.giveBack(again);
    assert.equal(buffers.keptIdle, 1024 * 1024);
  });
});
