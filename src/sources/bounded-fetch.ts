/** What a bounded GET returned: a body, or that the resource has not changed (304). */
export type FetchResult =
  | { status: 'ok'; body: Buffer; etag: string | null; lastModified: string | null }
  | { status: 'not-modified' };

/** A request that failed: the network, a time-out, an HTTP error status, or a body over the limit. */
export class FetchFailed extends Error {
  constructor(
    message: string,
    /** True when asking again later may succeed (network, time-out, 5xx, 429). */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

export interface BoundedGet {
  url: string;
  maxBytes: number;
  timeoutMs: number;
  headers?: Record<string, string>;
  /** Aborts the request early (the source is stopping). */
  signal?: AbortSignal;
}

/**
 * GET with a time-out covering the whole exchange (headers and body) and a size limit: a body over
 * `maxBytes` is abandoned as soon as it is known (Content-Length, or while streaming), never held.
 */
export async function boundedGet(req: BoundedGet): Promise<FetchResult> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(req.url, { headers: req.headers, signal, redirect: 'follow' });
  } catch (err) {
    throw failure(err, timeout, req);
  }
  try {
    if (res.status === 304) return { status: 'not-modified' };
    if (res.status !== 200) {
      throw new FetchFailed(
        `HTTP ${res.status}`,
        res.status >= 500 || res.status === 429 || res.status === 408,
      );
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > req.maxBytes)
      throw new FetchFailed(`body of ${declared} bytes over ${req.maxBytes}`, false);
    const body = await readLimited(res, req.maxBytes);
    return {
      status: 'ok',
      body,
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
    };
  } catch (err) {
    if (err instanceof FetchFailed) throw err;
    throw failure(err, timeout, req);
  } finally {
    // Whatever is left of the body is not wanted: release the connection.
    if (!res.bodyUsed) await res.body?.cancel().catch(() => {});
  }
}

async function readLimited(res: Response, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new FetchFailed(`body over ${maxBytes} bytes`, false);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}

function failure(err: unknown, timeout: AbortSignal, req: BoundedGet): FetchFailed {
  if (timeout.aborted) return new FetchFailed(`no complete answer within ${req.timeoutMs} ms`, true);
  if (req.signal?.aborted) return new FetchFailed('stopped', true);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new FetchFailed(cause?.code ?? cause?.message ?? (err as Error).message, true);
}
