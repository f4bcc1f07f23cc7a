import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';
import type { SharedBuffers } from '../telegrams/shared-buffers.ts';

type Done = (err: Error | null, body?: Buffer) => void;

/**
 * A content-type parser for a raw body, with the limits and errors of Fastify's own buffer parser
 * (413 over `limit`, 400 when the body and its Content-Length disagree). A body of `sharedFrom`
 * bytes or more ends in one Buffer over a SharedArrayBuffer: a worker thread then receives it
 * without a copy. With a Content-Length, the chunks are copied into that Buffer as they arrive, so
 * the cost of touching megabytes of fresh memory (about 5 ms per MB here) is spread over the reads
 * instead of being paid at once at the end (docs/telegrams.md, "Size"). Shared memory is taken from
 * `buffers`: the route gives a body back (`buffers.giveBack`) once nothing reads it any more.
 */
export function sharedBodyParser(limit: number, sharedFrom: number, buffers: SharedBuffers) {
  /** One Buffer of `size` bytes, over shared memory from `sharedFrom` bytes on. */
  const allocate = (size: number) => (size >= sharedFrom ? buffers.take(size) : Buffer.allocUnsafe(size));
  return (_request: FastifyRequest, payload: IncomingMessage, done: Done): void => {
    const declared = payload.headers['content-length'];
    const expected = declared === undefined ? null : Number(declared);
    if (expected !== null && expected > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    const sized = expected !== null && Number.isSafeInteger(expected) ? allocate(expected) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    /** Refused: the memory taken for the body goes back at once. */
    const fail = (err: Error) => {
      if (sized) buffers.giveBack(sized);
      done(err);
    };
    function onData(chunk: Buffer) {
      if (received + chunk.length > limit || (sized && received + chunk.length > sized.length)) {
        stop();
        return fail(
          sized && received + chunk.length <= limit
            ? new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH()
            : new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(),
        );
      }
      if (sized) chunk.copy(sized, received);
      else chunks.push(chunk);
      received += chunk.length;
      if (received >= sharedFrom) {
        // One chunk per turn of the event loop: a socket read loop would otherwise take a whole
        // burst of chunks at once while a database reply or an early warning waits behind it.
        payload.pause();
        setImmediate(() => payload.resume());
      }
    }
    function onEnd(err?: Error & { statusCode?: number }) {
      stop();
      if (err) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        return fail(err);
      }
      if (sized) {
        if (received !== sized.length) return fail(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return done(null, sized);
      }
      const body = allocate(received);
      let at = 0;
      for (const chunk of chunks) at += chunk.copy(body, at);
      done(null, body);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  };
}
