/**
 * One HTTP attempt of a delivery, bounded (docs/webhooks.md "Safety"): the whole exchange within a
 * time limit, the response body read up to a few KiB and then dropped, redirects not followed (a 3xx
 * is a failed attempt), connections only to addresses the address guard allows. undici's `Agent`:
 * it follows no redirect (no `maxRedirections`), passes its `connect` options (the guard's `lookup`)
 * to net.connect/tls.connect for every connection, keeps connections alive per origin, and posts at
 * about half the CPU of Node's http client (docs/webhooks.md "Operations").
 */
import { Agent, errors } from 'undici';
import { guardedLookup, refusedHost } from './address-guard.ts';
import type { AttemptOutcome } from './deliveries.ts';

export interface SenderOptions {
  /** The whole attempt: connection, request, status line and the response read (10 s). */
  timeoutMs: number;
  /** Response bytes read; the rest is not (the connection is closed). */
  maxResponseBytes: number;
  /** Connections at once to one host from this process (the workers bound the attempts in all). */
  maxSocketsPerHost: number;
  /** An idle kept-alive connection is closed after this long. */
  idleMs: number;
  allowPrivate: boolean;
}

export interface OutgoingPost {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The wait a Retry-After asks for (seconds or an HTTP date), in milliseconds; null when none or malformed. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  if (/^\d{1,9}$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The few words of a failed attempt for an error undici threw (no secret, no body). */
function failureOf(err: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout';
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ADDRESS_REFUSED') return 'address refused';
  return `connection failed (${code ?? 'error'})`;
}

export class Sender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({
      connections: options.maxSocketsPerHost,
      keepAliveTimeout: options.idleMs,
      keepAliveMaxTimeout: options.idleMs,
      // The attempt's own timer bounds it all (undici's would only bound the parts).
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: options.allowPrivate ? {} : { lookup: guardedLookup },
    });
  }

  /** Posts once; never throws: every failure is an outcome. */
  async send(post: OutgoingPost): Promise<AttemptOutcome> {
    const started = performance.now();
    const fail = (error: string, status: number | null = null, retryAfter: number | null = null) => ({
      ok: false,
      status,
      error,
      durationMs: performance.now() - started,
      retryAfterMs: retryAfter,
    });
    let url: URL;
    try {
      url = new URL(post.url);
    } catch {
      return fail('invalid URL');
    }
    const secure = url.protocol === 'https:';
    if (!secure && !(url.protocol === 'http:' && this.options.allowPrivate)) return fail('scheme refused');
    if (!this.options.allowPrivate && refusedHost(url.hostname)) return fail('address refused');
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.options.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: post.headers,
        body: post.body,
        signal: abort.signal,
      });
      const status = response.statusCode;
      // The status decides the attempt at once; the body is read only to keep the connection, up to
      // the byte limit and within the attempt's time (the timer goes on), and is not kept.
      let read = 0;
      response.body.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > this.options.maxResponseBytes) response.body.destroy();
      });
      response.body.on('error', () => {});
      response.body.on('close', () => clearTimeout(timer));
      if (status >= 200 && status < 300)
        return { ok: true, status, error: null, durationMs: performance.now() - started, retryAfterMs: null };
      const why = status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`;
      return fail(why, status, retryAfterMs(response.headers['retry-after'], Date.now()));
    } catch (err) {
      clearTimeout(timer);
      return fail(failureOf(err, abort.signal.aborted || err instanceof errors.RequestAbortedError));
    }
  }

  close(): void {
    this.agent.destroy().catch(() => {});
  }
}
