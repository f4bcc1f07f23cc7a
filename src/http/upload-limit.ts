import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';
import { sharedPlugin, sharedPlugins } from './plugins.ts';
import { addressGroup } from './client-address.ts';

/** Whether a request announces a body (a length above zero or a chunked transfer). */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A body small enough that even many slow ones hold little memory (the data API's own body limit):
 * not counted, so bursts of small requests (socket starts) are never refused as uploads.
 */
const SMALL_BODY_BYTES = 64 * 1024;

function isSmallBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    Number(length) <= SMALL_BODY_BYTES
  );
}

/** Requests whose body may be under way at once, from one client address and in total. */
export interface UploadLimits {
  perAddress: number;
  total: number;
}

/**
 * Caps the requests whose body is still being received, per client address and in total, so slow
 * uploads cannot hold the server's memory (docs/security.md "Limits"). Bodies of at most 64 KiB
 * declared by Content-Length are not counted. Over the per-address cap
 * the answer is 429, over the total 503, both with Retry-After and before the body is read. A
 * request counts from the end of its onRequest hooks until its response is sent or its
 * connection closes.
 */
export const uploadLimit = sharedPlugin<UploadLimits>(sharedPlugins.uploadLimit, async (app, limits) => {
  const perAddress = new Map<string, number>();
  let total = 0;
  // In preParsing, after every onRequest hook: a request refused for its credentials (data API
  // authentication, the console's ingest form) is answered without ever holding a slot.
  app.addHook('preParsing', async (request, reply, payload) => {
    if (!hasBody(request) || isSmallBody(request)) return payload;
    const address = addressGroup(request.ip);
    const mine = perAddress.get(address) ?? 0;
    if (mine >= limits.perAddress)
      throw new HttpError('TOO_MANY_REQUESTS', { headers: { 'retry-after': '5' } });
    if (total >= limits.total) throw new HttpError('BUSY', { headers: { 'retry-after': '5' } });
    perAddress.set(address, mine + 1);
    total += 1;
    reply.raw.once('close', () => {
      total -= 1;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    return payload;
  });
  // A refusal sent before the body was read closes the connection instead of draining that body.
  app.addHook('onSend', async (request, reply) => {
    if (hasBody(request) && !request.raw.complete) reply.header('connection', 'close');
  });
});
