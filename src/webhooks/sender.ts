/**
 * One HTTP attempt of a delivery, bounded (docs/webhooks.md "Safety"): the whole exchange within a
 * time limit, the response body read up to a few KiB and then dropped, redirects not followed (a 3xx
 * is a failed attempt), connections only to addresses the address guard allows. Node's own
 * http/https clients: they follow no redirect, take a `lookup` per request for the guard, and keep
 * connections alive per host through one agent per process.
 */
import http from 'node:http';
import https from 'node:https';
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

export class Sender {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly options: SenderOptions) {
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSocketsPerHost,
      // No maxTotalSockets: Node's agent counts idle kept-alive connections to other hosts in it, so
      // an attempt to a new host waited until one of those closed (the workers bound the attempts).
      timeout: options.idleMs,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
    };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  }

  /** Posts once; never throws: every failure is an outcome. */
  send(post: OutgoingPost): Promise<AttemptOutcome> {
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
      return Promise.resolve(fail('invalid URL'));
    }
    const secure = url.protocol === 'https:';
    if (!secure && !(url.protocol === 'http:' && this.options.allowPrivate))
      return Promise.resolve(fail('scheme refused'));
    if (!this.options.allowPrivate && refusedHost(url.hostname))
      return Promise.resolve(fail('address refused'));
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        headers: { ...post.headers, 'content-length': String(post.body.length) },
      });
      const timer = setTimeout(() => {
        settle(fail('timeout'));
        request.destroy();
      }, this.options.timeoutMs);
      request.on('error', (err: NodeJS.ErrnoException) =>
        settle(
          fail(
            err.code === 'ADDRESS_REFUSED' ? 'address refused' : `connection failed (${err.code ?? 'error'})`,
          ),
        ),
      );
      request.on('response', (response) => {
        // The status decides the attempt at once; the body is read only to keep the connection, up to
        // the byte limit and within the attempt's time, and is not kept.
        const status = response.statusCode ?? 0;
        const remaining = Math.max(0, this.options.timeoutMs - (performance.now() - started));
        if (status >= 200 && status < 300) {
          settle({
            ok: true,
            status,
            error: null,
            durationMs: performance.now() - started,
            retryAfterMs: null,
          });
        } else {
          const why = status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`;
          settle(fail(why, status, retryAfterMs(response.headers['retry-after'], Date.now())));
        }
        const drain = setTimeout(() => response.destroy(), remaining);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.options.maxResponseBytes) response.destroy();
        });
        response.on('close', () => clearTimeout(drain));
        response.on('error', () => {});
      });
      request.end(post.body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
