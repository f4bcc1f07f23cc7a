/**
 * `fetch` for tests. A test server started without a port (`startTestServer({ listen: false })`)
 * answers its origin through Fastify's `inject()`: the request and the response go through the
 * whole app (hooks, parsers, serialisers) without a socket. Any other URL goes to the real fetch.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import type { App } from '../../src/http/surface.ts';

const injectable = new Map<string, App>();
let origins = 0;

/**
 * Gives `app` an origin that `testFetch` answers through `app.inject()`: loopback on a port below
 * 1024, where nothing of the tests listens. `forget` undoes it.
 */
export function serveByInjection(app: App): { origin: string; forget: () => void } {
  const origin = `http://127.0.0.1:${++origins}`;
  injectable.set(origin, app);
  return { origin, forget: () => injectable.delete(origin) };
}

function payloadOf(body: RequestInit['body'], headers: Headers): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  // The content types fetch gives these bodies when the caller sets none.
  if (typeof body === 'string') {
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    return body;
  }
  if (body instanceof URLSearchParams) {
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error('testFetch: unsupported body type');
}

export async function testFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input);
  const app = injectable.get(url.origin);
  if (!app) return fetch(url, init);
  const headers = new Headers(init.headers);
  const payload = payloadOf(init.body, headers);
  // What fetch sends when the caller does not say otherwise.
  const defaults = {
    host: url.host,
    accept: '*/*',
    'accept-language': '*',
    'accept-encoding': 'gzip, deflate',
    'sec-fetch-mode': 'cors',
    'user-agent': 'node',
  };
  for (const [name, value] of Object.entries(defaults)) if (!headers.has(name)) headers.set(name, value);
  const res = await app.inject({
    method: (init.method ?? 'GET') as 'GET',
    url: url.pathname + url.search,
    headers: Object.fromEntries(headers),
    payload,
  });
  if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location && init.redirect !== 'manual')
    throw new Error('testFetch follows no redirects: pass `redirect: "manual"`');
  const out = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const one of Array.isArray(value) ? value : [value])
      if (one !== undefined) out.append(name, String(one));
  // fetch decodes a compressed body and keeps the Content-Encoding header.
  const encoding = out.get('content-encoding');
  const body =
    encoding === 'gzip'
      ? gunzipSync(res.rawPayload)
      : encoding === 'deflate'
        ? inflateSync(res.rawPayload)
        : res.rawPayload;
  const bodiless = [101, 204, 205, 304].includes(res.statusCode) || init.method === 'HEAD';
  return new Response(bodiless ? null : body, {
    status: res.statusCode,
    statusText: res.statusMessage,
    headers: out,
  });
}
