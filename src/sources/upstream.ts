import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { WebSocket } from 'ws';
import { ingestTelegram } from '../telegrams/ingest.ts';
import type { IngestHints } from '../telegrams/prepare.ts';
import { backoffDelay } from './backoff.ts';
import { boundedRequest, FetchFailed, type BoundedResponse } from './bounded-fetch.ts';
import { broughtTelegram, heardFrom } from './lag.ts';
import type { SourceDeps } from './deps.ts';
import { loadPosition, savePosition } from './positions.ts';
import { relayScopes, UpstreamAuth, type UpstreamCredential } from './upstream-auth.ts';
import { CodedError } from '../errors.ts';

const SOURCE = 'upstream';
const PAGE = 100;
/** Pages read by one catch-up; a longer backlog is taken up by the next (docs/sources.md). */
export const MAX_PAGES_PER_CATCH_UP = 20;
/** Largest API answer read (a page of 100 list items is about 100 KB). */
const MAX_API_BYTES = 4 * 1024 * 1024;
/** Upstream ids remembered as received, so a second connection or a recovery page skips them. */
const REMEMBERED_IDS = 10_000;
/** An upstream pings every 30 s by default; this much silence means the connection is dead. */
const SILENCE_MS = 150_000;
/**
 * Bodies of live telegrams waiting in the queue (behind a catch-up, a slow ingest) beyond which the
 * sockets stop being read until the queue drains: a body of a few bytes may decompress to the
 * telegram size limit, so a count of messages alone would not bound memory.
 */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;
/** Close codes by which an upstream refuses a session (docs/realtime.md "Protocol"). */
const REFUSALS = new Set([4400, 4404, 4409, 4640, 4641, 4807, 4808, 4891]);

export interface UpstreamOptions {
  /** The upstream's data API origin (its `base_url`). */
  url: string;
  /**
   * Where the upstream serves telegram bodies (a list item's `url`), when not on `url`'s origin;
   * a body elsewhere is never fetched, so the credential goes nowhere else.
   */
  dataUrl?: string | null;
  credential: UpstreamCredential;
  classifications: readonly string[];
  connections: 1 | 2;
  /** First reconnection delay (default 1 s; doubled per failure up to `retryMaxMs`, with jitter). */
  retryBaseMs?: number;
  /** Longest reconnection delay (default 60 s). */
  retryMaxMs?: number;
  /** While connected, the polling position is moved forward this often (default 60 s). */
  advanceEveryMs?: number;
  /**
   * How long a listed telegram whose body keeps failing for a reason that may pass (5xx, time-out)
   * stops each catch-up at it before it is skipped (default 10 min): the telegrams listed after it
   * are not held back for ever.
   */
  bodyGraceMs?: number;
  timeoutMs?: number;
}

interface Head {
  type: string;
  author: string;
  target?: string;
  time: string;
  designation: string | null;
}

/** A `data` message, or a list item with its body fetched: one telegram from the upstream. */
interface Received {
  id: string;
  head: Head;
  body: Buffer;
}

class UpstreamRejected extends CodedError {
  constructor(message: string) {
    super('UPSTREAM_REJECTED', { message });
  }
}

/** An API answer of the upstream that is not a 200 with a JSON object. */
class UpstreamApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const BODY_GRACE_MS = 10 * 60_000;

/**
 * The upstream relay (docs/sources.md): a service.v2 client of another server. Every telegram it
 * receives, live on a socket or recovered by polling `/v2/telegram` after a disconnection, goes
 * through one queue into the ingest, so order is kept and two connections never store twice.
 */
export class UpstreamRelay {
  private readonly auth: UpstreamAuth;
  private readonly stopping = new AbortController();
  private readonly sockets = new Set<WebSocket>();
  private readonly seen = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  /** Bytes of the live bodies in the queue (MAX_QUEUED_BYTES). */
  private queuedBytes = 0;
  private recoveryQueued = false;
  /**
   * The listed telegram whose body failed for a reason that may pass, and since when (`bodyGraceMs`).
   * One at most: such a failure stops the catch-up, which starts again from that telegram.
   */
  private bodyFailing: { id: string; since: number } | null = null;
  private loops: Promise<void>[] = [];
  private readonly positionKey: string;
  private readonly timeoutMs: number;
  private readonly bodyOrigins: Set<string>;

  constructor(
    private readonly deps: SourceDeps,
    private readonly options: UpstreamOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.auth = new UpstreamAuth(
      options.url,
      options.credential,
      relayScopes(options.classifications),
      this.timeoutMs,
    );
    this.positionKey = `${SOURCE} ${new URL(options.url).origin}`;
    this.bodyOrigins = new Set([new URL(options.url).origin]);
    if (options.dataUrl) this.bodyOrigins.add(new URL(options.dataUrl).origin);
  }

  start(): void {
    if (this.loops.length > 0) return;
    // At 0 from the start: the alert's increase() would not count the first rejection.
    this.deps.metrics.sourceRejections.inc({ source: SOURCE }, 0);
    for (let i = 0; i < this.options.connections; i++) this.loops.push(this.connectionLoop(i));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    for (const ws of this.sockets) ws.close(1000);
    await Promise.all(this.loops);
    await this.queue;
  }

  /** Runs work after everything queued before it: the one path into the ingest. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch((err: unknown) => {
      if (!this.stopping.signal.aborted) this.deps.log.error({ err }, 'upstream relay step failed');
    });
    return run;
  }

  private async connectionLoop(index: number): Promise<void> {
    const { log } = this.deps;
    const signal = this.stopping.signal;
    let failures = 0;
    let saidDown = false;
    const maxMs = this.options.retryMaxMs ?? 60_000;
    while (!signal.aborted) {
      let openedAt: number | null = null;
      let refused = false;
      try {
        const code = await this.session(index, () => {
          openedAt = Date.now();
          if (saidDown) log.info({ connection: index }, 'upstream reachable again');
          saidDown = false;
        });
        refused = REFUSALS.has(code);
      } catch (err) {
        if (signal.aborted) break;
        this.deps.metrics.sourceRequests.inc({ source: SOURCE, outcome: 'failed' });
        if (!saidDown)
          log.warn(
            { connection: index, reason: (err as Error).message },
            'upstream unreachable; backing off',
          );
        saidDown = true;
      }
      if (signal.aborted) break;
      // After a session that lasted (an upstream restart, a network cut) the next attempt comes
      // soon; after a failure, a refusal (a full connection limit, an ended contract) or a session
      // ended before the longest wait had passed (an upstream that closes every socket as it opens)
      // the wait grows, so the upstream is not hammered.
      const lasted = openedAt !== null && Date.now() - openedAt >= maxMs;
      failures = lasted && !refused ? 1 : failures + 1;
      const delay = backoffDelay(failures, this.options.retryBaseMs ?? 1000, maxMs);
      await sleep(delay, undefined, { signal }).catch(() => {});
    }
  }

  /** One socket session: start it, connect, recover what was missed, relay until it closes. */
  private async session(index: number, onOpen: () => void): Promise<number> {
    const started = await this.api<{ websocket: { url: string; protocol?: string[] } }>(
      'POST',
      '/v2/socket',
      {
        classifications: this.options.classifications,
        test: 'including',
        formatMode: 'raw',
        appName: `namazu-relay-${index}`,
      },
    );
    const ws = new WebSocket(started.websocket.url, started.websocket.protocol ?? ['service.v2'], {
      maxPayload: 8 * this.deps.config.maxTelegramBytes,
      handshakeTimeout: this.timeoutMs,
    });
    this.sockets.add(ws);
    try {
      return await new Promise<number>((resolve, reject) => {
        let silence: NodeJS.Timeout | undefined;
        let advance: NodeJS.Timeout | undefined;
        const heard = () => {
          clearTimeout(silence);
          silence = setTimeout(() => ws.terminate(), SILENCE_MS);
        };
        ws.on('open', () => {
          onOpen();
          heard();
          this.deps.log.info({ connection: index }, 'upstream connected');
          advance = setInterval(() => this.recoverSoon(), this.options.advanceEveryMs ?? 60_000);
        });
        ws.on('message', (data: Buffer) => {
          heard();
          this.onMessage(ws, data);
        });
        ws.on('error', (err) => reject(err));
        ws.on('close', (code) => {
          clearTimeout(silence);
          clearInterval(advance);
          if (!this.stopping.signal.aborted)
            this.deps.log.info({ connection: index, code }, 'upstream disconnected');
          resolve(code);
        });
      });
    } finally {
      this.sockets.delete(ws);
    }
  }

  /** Queues a recovery unless one is queued already and has not started (a slow upstream). */
  private recoverSoon(): void {
    if (this.recoveryQueued) return;
    this.recoveryQueued = true;
    void this.enqueue(() => {
      this.recoveryQueued = false;
      return this.recover();
    }).catch(() => {});
  }

  private onMessage(ws: WebSocket, data: Buffer): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    // JSON, but not a message (`null`, a number, an array): ignored like unparseable text.
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
    heardFrom(this.deps, SOURCE);
    if (message.type === 'start') {
      // The socket carries what the upstream commits after its `start`, not after the WebSocket
      // opened (the session is checked in between): what was missed until `start` is recovered
      // from the list, queued before any telegram this socket delivers.
      this.recoverSoon();
    } else if (message.type === 'ping') {
      ws.send(JSON.stringify({ type: 'pong', pingId: message.pingId }));
    } else if (message.type === 'error') {
      this.deps.log.warn({ error: message.error, code: message.code }, 'upstream reported an error');
    } else if (message.type === 'data' && message.format !== 'json') {
      let received: Received;
      try {
        received = fromDataMessage(message, this.deps.config.maxTelegramBytes);
      } catch (err) {
        this.reject(String(message.id), (err as Error).message);
        return;
      }
      const bytes = received.body.length;
      this.queuedBytes += bytes;
      if (this.queuedBytes > MAX_QUEUED_BYTES) for (const socket of this.sockets) socket.pause();
      void this.enqueue(async () => {
        try {
          await this.ingest(received);
        } finally {
          this.queuedBytes -= bytes;
          if (this.queuedBytes <= MAX_QUEUED_BYTES)
            for (const socket of this.sockets) if (socket.isPaused) socket.resume();
        }
      }).catch(() => {});
    }
  }

  /**
   * Polls the upstream's `/v2/telegram` from the stored position and ingests, oldest first, every
   * telegram not received yet; then stores the new position. Without a position (first start),
   * the position is taken at the newest telegram: history is not copied.
   */
  private async recover(): Promise<void> {
    const saved = await loadPosition<{ nextPooling: string }>(this.deps.db, this.positionKey);
    if (!saved) {
      const first = await this.list(null, 1);
      await savePosition(this.deps.db, this.positionKey, { nextPooling: first.nextPooling });
      return;
    }
    let cursor = saved.nextPooling;
    for (let pages = 1; ; pages++) {
      let page: Awaited<ReturnType<UpstreamRelay['list']>>;
      try {
        page = await this.list(cursor, PAGE);
      } catch (err) {
        if (!(err instanceof UpstreamApiError && err.status === 400)) throw err;
        // The upstream refuses the position itself (expired, or from another upstream): no catch-up
        // could ever pass it. The newest becomes the position; what lay between is not recovered.
        this.deps.log.error(
          { cursor: cursor.slice(0, 100), reason: err.message },
          'upstream refused the stored position; catch-ups resume from its newest telegram',
        );
        const newest = await this.list(null, 1);
        await savePosition(this.deps.db, this.positionKey, { nextPooling: newest.nextPooling });
        return;
      }
      for (const item of [...page.items].reverse()) {
        // The list shows every contracted classification: only the relayed ones are taken.
        if (this.seen.has(item.id) || item.format === 'json') continue;
        if (!this.options.classifications.includes(item.classification)) continue;
        let body: Buffer;
        try {
          body = await this.fetchBody(item.url);
          if (this.bodyFailing?.id === item.id) this.bodyFailing = null;
        } catch (err) {
          // A body that can never be had is skipped; one that may come later stops this catch-up,
          // until it has failed for the grace.
          const final = err instanceof UpstreamRejected || (err instanceof FetchFailed && !err.transient);
          if (!final && !this.bodyGraceOver(item.id)) throw err;
          this.bodyFailing = null;
          this.remember(item.id);
          this.reject(item.id, (err as Error).message);
          continue;
        }
        await this.ingest({ id: item.id, head: item.head, body });
      }
      cursor = page.nextPooling;
      await savePosition(this.deps.db, this.positionKey, { nextPooling: cursor });
      if (page.items.length < PAGE) return;
      if (pages === MAX_PAGES_PER_CATCH_UP) {
        // What is queued meanwhile (live telegrams) goes first; the next cycle resumes here.
        this.deps.log.warn({ pages }, 'upstream backlog longer than one catch-up; resumed at the next');
        return;
      }
    }
  }

  /** Whether a body that failed for a reason that may pass has failed for the grace (its first failure counted). */
  private bodyGraceOver(id: string): boolean {
    const now = Date.now();
    if (this.bodyFailing?.id !== id) this.bodyFailing = { id, since: now };
    return now - this.bodyFailing.since >= (this.options.bodyGraceMs ?? BODY_GRACE_MS);
  }

  private async ingest(received: Received): Promise<void> {
    if (this.seen.has(received.id)) return;
    const { head } = received;
    const hints: IngestHints = {
      type: head.type,
      author: head.author,
      time: head.time,
      designation: head.designation,
      ...(head.target !== undefined ? { target: head.target } : {}),
      receivedTime: this.deps.clock.now(),
    };
    const outcome = await ingestTelegram({ ...this.deps, source: SOURCE }, received.body, hints);
    this.remember(received.id);
    if (!outcome.ok) return this.reject(received.id, outcome.reason);
    if (!outcome.stored.duplicate) broughtTelegram(this.deps, SOURCE);
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value!);
  }

  private reject(id: string, reason: string): void {
    this.deps.metrics.sourceRejections.inc({ source: SOURCE });
    this.deps.log.warn({ upstreamId: id, reason }, 'upstream telegram refused');
  }

  private async list(cursor: string | null, limit: number) {
    const query = new URLSearchParams({ limit: String(limit), test: 'including', formatMode: 'raw' });
    if (cursor !== null) query.set('cursorToken', cursor);
    const page = await this.api<{
      items: { id: string; classification: string; head: Head; format: string | null; url: string }[];
      nextPooling: string;
    }>('GET', `/v2/telegram?${query}`);
    // A page the relay cannot follow must not become its position: that would stop every recovery.
    if (!Array.isArray(page.items) || typeof page.nextPooling !== 'string' || page.nextPooling === '')
      throw new Error('upstream GET /v2/telegram: an answer without items or nextPooling');
    return page;
  }

  private async fetchBody(url: string): Promise<Buffer> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      throw new UpstreamRejected(`upstream body URL ${JSON.stringify(url)} is not a URL`);
    }
    if (!this.bodyOrigins.has(origin))
      throw new UpstreamRejected(`upstream body URL on ${origin}, not the upstream's: not fetched`);
    const res = await this.request('GET', url, this.deps.config.maxTelegramBytes);
    // Not there (any more): skipped. A refused credential may be put right: tried again.
    if (res.status === 404 || res.status === 410)
      throw new UpstreamRejected(`upstream body ${url}: HTTP ${res.status}`);
    if (res.status !== 200) throw new Error(`upstream body ${url}: HTTP ${res.status}`);
    return res.body;
  }

  private async api<T>(method: 'GET' | 'POST', path: string, json?: unknown): Promise<T> {
    const res = await this.request(method, new URL(path, this.options.url).toString(), MAX_API_BYTES, json);
    let body: (T & { error?: { message?: string } }) | null = null;
    try {
      body = JSON.parse(res.body.toString('utf8')) as T & { error?: { message?: string } };
    } catch {
      // reported below
    }
    if (res.status !== 200 || body === null || typeof body !== 'object')
      throw new UpstreamApiError(
        `upstream ${method} ${path.split('?')[0]}: HTTP ${res.status} ${body?.error?.message ?? ''}`.trim(),
        res.status,
      );
    this.deps.metrics.sourceRequests.inc({ source: SOURCE, outcome: 'ok' });
    heardFrom(this.deps, SOURCE);
    return body;
  }

  /**
   * One authenticated request, bounded in time and size (bounded-fetch.ts); a 401 with an OAuth
   * token renews the token and tries once more.
   */
  private async request(
    method: 'GET' | 'POST',
    url: string,
    maxBytes: number,
    json?: unknown,
    retried = false,
  ): Promise<BoundedResponse> {
    const res = await boundedRequest({
      url,
      method,
      headers: {
        authorization: await this.auth.header(),
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      maxBytes,
      timeoutMs: this.timeoutMs,
      signal: this.stopping.signal,
    });
    if (res.status === 401 && !retried && !('apiKey' in this.options.credential)) {
      this.auth.invalidate();
      return this.request(method, url, maxBytes, json, true);
    }
    return res;
  }
}

/** The telegram of a `data` message: its body decoded (base64, gzip) to the bytes as received. */
function fromDataMessage(m: Record<string, unknown>, maxBytes: number): Received {
  const head = m.head as Head | undefined;
  if (typeof m.id !== 'string' || typeof m.body !== 'string' || !head || typeof head.type !== 'string')
    throw new UpstreamRejected('data message without id, head or body');
  let body = Buffer.from(m.body, m.encoding === 'base64' ? 'base64' : 'utf8');
  if (m.compression === 'gzip') {
    try {
      body = gunzipSync(body, { maxOutputLength: maxBytes });
    } catch (err) {
      throw new UpstreamRejected(`body does not decompress: ${(err as Error).message}`);
    }
  } else if (m.compression !== null && m.compression !== undefined) {
    throw new UpstreamRejected(`unknown compression ${String(m.compression)}`);
  }
  return { id: m.id, head, body };
}
