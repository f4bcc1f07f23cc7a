import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CodedError } from '../errors.ts';

/** What a bounded GET returned: a body, or that the resource has not changed (304). */
export type FetchResult =
  | { status: 'ok'; body: Buffer; etag: string | null; lastModified: string | null }
  | { status: 'not-modified' };

/** A request that failed: the network, a time-out, an HTTP error status, or a body over the limit. */
export class FetchFailed extends CodedError {
  constructor(
    message: string,
    /** True when asking again later may succeed (network, time-out, 5xx, 429). */
    readonly transient: boolean,
    /** The HTTP status of an answer that was an error. */
    readonly status: number | null = null,
  ) {
    super('FETCH_FAILED', { message });
  }
}

export interface BoundedRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Largest body accepted, as received and once decompressed. */
  maxBytes: number;
  /** Deadline of the whole exchange: connection, a retry, headers, body and decompression. */
  timeoutMs: number;
  /** Aborts the request early (the source is stopping). */
  signal?: AbortSignal;
}

export interface BoundedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, decompressed. */
  body: Buffer;
}

export type BoundedGet = Omit<BoundedRequest, 'method' | 'body'>;

/** Redirects followed by a GET, each on the origin of the request that received it. */
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Connections kept open between requests, one pool per scheme. A host may close an idle one at any
 * moment (Node and Apache close after 5 s): a request that fails on a reused connection before
 * any byte of the answer arrived is sent again once, on a new connection.
 */
const pools = {
  // An idle connection is dropped after 4 s, before the 5 s after which most hosts close theirs.
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 }),
};

const decompressors: Record<string, (buf: Buffer, opts: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/**
 * One HTTP request bounded in time and size (docs/sources.md "Network sources"): a body over
 * `maxBytes` is abandoned as soon as it is known (Content-Length, while streaming, or while
 * decompressing: a compressed bomb stops at the cap), never held. A GET follows a redirect only
 * on the origin of the request that received it, so a header such as a credential never leaves
 * the origin it was given for; a POST follows none.
 */
export async function boundedRequest(req: BoundedRequest): Promise<BoundedResponse> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let url = parseUrl(req.url);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await withOneRetry(url, req, signal);
      const location = res.headers.location;
      if (req.method === 'POST' || !REDIRECTS.has(res.status) || location === undefined)
        return { ...res, body: await decompress(res, req.maxBytes) };
      if (redirects === MAX_REDIRECTS) throw new FetchFailed(`more than ${MAX_REDIRECTS} redirects`, false);
      const next = parseUrl(location, url);
      if (next.origin !== url.origin)
        throw new FetchFailed(`redirect to another origin (${next.origin}) not followed`, false);
      url = next;
    }
  } catch (err) {
    if (err instanceof FetchFailed) throw err;
    if (timeout.aborted) throw new FetchFailed(`no complete answer within ${req.timeoutMs} ms`, true);
    if (req.signal?.aborted) throw new FetchFailed('stopped', true);
    const e = err as NodeJS.ErrnoException;
    throw new FetchFailed(e.code ?? e.message, true);
  }
}

/**
 * GET of a resource that answers 200 or, to a conditional request, 304; any other status is a
 * failure (transient for 5xx, 408 and 429).
 */
export async function boundedGet(req: BoundedGet): Promise<FetchResult> {
  const res = await boundedRequest({ ...req, method: 'GET' });
  if (res.status === 304) return { status: 'not-modified' };
  if (res.status !== 200)
    throw new FetchFailed(
      `HTTP ${res.status}`,
      res.status >= 500 || res.status === 429 || res.status === 408,
      res.status,
    );
  const header = (name: string) => {
    const v = res.headers[name];
    return typeof v === 'string' ? v : null;
  };
  return { status: 'ok', body: res.body, etag: header('etag'), lastModified: header('last-modified') };
}

function parseUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchFailed(`invalid URL ${JSON.stringify(text.slice(0, 200))}`, false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchFailed(`unsupported scheme ${url.protocol}`, false);
  return url;
}

interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as received (possibly compressed). */
  raw: Buffer;
}

/** A network failure: whether it happened on a pooled connection before any byte of the answer. */
class AttemptFailed extends CodedError {
  constructor(
    readonly error: Error,
    readonly beforeAnswerOnReused: boolean,
  ) {
    super('FETCH_ATTEMPT_FAILED', { message: error.message });
  }
}

async function withOneRetry(url: URL, req: BoundedRequest, signal: AbortSignal): Promise<Received> {
  try {
    return await attempt(url, req, signal, pools[url.protocol as 'http:' | 'https:']);
  } catch (err) {
    if (!(err instanceof AttemptFailed)) throw err;
    // The host closed the idle connection while the request was on its way: it never saw it.
    if (err.beforeAnswerOnReused && !signal.aborted) {
      try {
        return await attempt(url, req, signal, false);
      } catch (again) {
        throw again instanceof AttemptFailed ? again.error : again;
      }
    }
    throw err.error;
  }
}

/** One exchange on one connection (`agent` false: a new connection of its own). */
function attempt(
  url: URL,
  req: BoundedRequest,
  signal: AbortSignal,
  agent: http.Agent | false,
): Promise<Received> {
  return new Promise((resolve, reject) => {
    // Before the request exists: one destroyed before its 'error' listener would crash the process.
    if (signal.aborted) return reject(new AttemptFailed(new Error('aborted'), false));
    const client = url.protocol === 'https:' ? https : http;
    let answered = false;
    const request = client.request(url, {
      method: req.method ?? 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br', ...req.headers },
      agent,
    });
    const fail = (err: Error) => {
      cleanup();
      request.destroy();
      reject(err instanceof FetchFailed ? err : new AttemptFailed(err, !answered && request.reusedSocket));
    };
    const onAbort = () => fail(new Error('aborted'));
    const cleanup = () => signal.removeEventListener('abort', onAbort);
    request.on('error', fail);
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('response', (res) => {
      answered = true;
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > req.maxBytes)
        return fail(new FetchFailed(`body of ${declared} bytes over ${req.maxBytes}`, false));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) return fail(new FetchFailed(`body over ${req.maxBytes} bytes`, false));
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) return fail(new Error('connection closed before the end of the answer'));
        cleanup();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks, size) });
      });
    });
    request.end(req.body);
  });
}

/** The body decoded from its Content-Encoding, stopped at `maxBytes` of output. */
async function decompress(res: Received, maxBytes: number): Promise<Buffer> {
  const encoding = String(res.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '' || res.raw.length === 0) return res.raw;
  const decode = decompressors[encoding];
  if (!decode) throw new FetchFailed(`unsupported Content-Encoding ${encoding}`, false);
  try {
    // On the thread pool, and abandoned as soon as the output passes the cap.
    return await decode(res.raw, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new FetchFailed(`decompressed body over ${maxBytes} bytes`, false);
    throw new FetchFailed(`body does not decompress: ${(err as Error).message}`, true);
  }
}
