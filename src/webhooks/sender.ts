/**
 * One HTTP attempt of a delivery, bounded (docs/webhooks.md "Safety"): the whole exchange within a
 * time limit, the response body read up to a few KiB and then dropped (but for the start of a
 * refusal's), redirects not followed (a 3xx
 * is a failed attempt), connections only to addresses the address guard allows. Posted with undici,
 * which posts faster than Node's http client (bench/webhook-client.ts): it follows no redirect
 * unless told to, passes the guard's `lookup` to each connection, and keeps connections alive per
 * origin through one agent per process.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { AddressResolver, refusedHost, type NameSources } from './address-guard.ts';
import type { AttemptOutcome } from './deliveries.ts';
import { excerptOf } from './response-excerpt.ts';

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
  /** Where host names are resolved (tests: a DNS server, a system lookup of their own). */
  nameSources?: NameSources;
}

/**
 * The headers of one request: the webhook's own (extra-headers.ts refuses the names of the others),
 * the format's, the user agent and the Standard Webhooks headers.
 */
export function requestHeaders(
  own: Readonly<Record<string, string>> | null,
  format: Readonly<Record<string, string>>,
  signed: Readonly<Record<string, string>>,
): Record<string, string> {
  return { ...own, ...format, 'user-agent': 'Namazu-Webhooks/1', ...signed };
}

export interface OutgoingPost {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The wait a Retry-After asks for, in milliseconds: seconds (with a decimal fraction too, as some
 * rate limiters write them) or an HTTP date (RFC 9110 §10.2.3); null when none or malformed. Only a
 * date with its zone is read as one: `Date.parse` reads "1.5" as a day of 2001.
 */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined) return null;
  if (/^\d{1,9}(?:\.\d{1,6})?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const at = /\bGMT$/.test(raw) ? Date.parse(raw) : NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The outcome's words for an error undici or the connection raised (the guard's refusal among them). */
function failureOf(err: unknown): string {
  const { code, cause } = err as { code?: string; cause?: { code?: string } };
  const why = code ?? cause?.code;
  return why === 'ADDRESS_REFUSED' ? 'address refused' : `connection failed (${why ?? 'error'})`;
}

/**
 * Whether the connection closed under the post before any answer while it was a kept-alive one: the
 * receiver closed it idle as the post arrived (RFC 9112 §9.3.1), so the post was never handled.
 * undici tells a close by the bytes it had read on that connection (an earlier answer: kept alive);
 * a reset comes without them, and counts too.
 */
function closedWhileKept(err: unknown): boolean {
  const { code, socket } = err as { code?: string; socket?: { bytesRead?: number } };
  if (code === 'UND_ERR_SOCKET') return (socket?.bytesRead ?? 0) > 0;
  return code === 'ECONNRESET';
}

/** What posts an attempt: a `Sender` here, or one on a thread of its own (sender-thread.ts). */
export interface PostSender {
  /** Posts once; never throws: every failure is an outcome. */
  send(post: OutgoingPost): Promise<AttemptOutcome>;
  close(): void;
}

export class Sender implements PostSender {
  private readonly agent: Agent;
  private readonly resolver: AddressResolver;

  constructor(private readonly options: SenderOptions) {
    // A name's lookup gets half the attempt's time, so that a lookup that does not answer is told as such.
    this.resolver = new AddressResolver({
      allowPrivate: options.allowPrivate,
      limitMs: Math.ceil(options.timeoutMs / 2),
      ...options.nameSources,
    });
    this.agent = new Agent({
      connections: options.maxSocketsPerHost,
      // A receiver's Keep-Alive hint may shorten the idle time, not lengthen it.
      keepAliveTimeout: options.idleMs,
      keepAliveMaxTimeout: options.idleMs,
      // The attempt's own timer bounds the whole exchange; these only keep undici's from firing first.
      headersTimeout: options.timeoutMs + 1000,
      bodyTimeout: options.timeoutMs + 1000,
      connect: { timeout: options.timeoutMs, lookup: this.resolver.lookup },
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
    const posting = () =>
      request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: post.headers,
        body: post.body,
        signal: abort.signal,
      });
    let response: Dispatcher.ResponseData;
    try {
      // Posted again at once (on another connection: that one is gone), within the attempt's time,
      // when a kept-alive connection closed under it: waiting for a retry's backoff would delay an
      // early warning by seconds for a race of the network. The `webhook-id` is the same, as on
      // every attempt.
      response = await posting().catch((err: unknown) => {
        if (abort.signal.aborted || !closedWhileKept(err)) throw err;
        return posting();
      });
    } catch (err) {
      clearTimeout(timer);
      return fail(abort.signal.aborted ? 'timeout' : failureOf(err));
    }
    // The status decides the attempt; the body is read only to keep the connection, up to the byte
    // limit and within the attempt's time (the timer still runs), and is not kept but for the start
    // of a refusal's, which says why.
    const { statusCode: status, body } = response;
    const refusal = status >= 200 && status < 300 ? null : excerptOf(body);
    let read = 0;
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > this.options.maxResponseBytes) body.destroy();
    });
    body.on('close', () => clearTimeout(timer));
    body.on('error', () => {});
    if (!refusal)
      return { ok: true, status, error: null, durationMs: performance.now() - started, retryAfterMs: null };
    const why = status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`;
    const retryAfter = retryAfterMs(response.headers['retry-after'], Date.now());
    return { ...fail(why, status, retryAfter), response: await refusal.text() };
  }

  close(): void {
    this.agent.destroy().catch(() => {});
    this.resolver.close();
  }
}
