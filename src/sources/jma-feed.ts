import { setTimeout as sleep } from 'node:timers/promises';
import { ingestTelegram } from '../telegrams/ingest.ts';
import { AtomRejected, parseAtom, type AtomEntry } from './atom.ts';
import { backoffDelay } from './backoff.ts';
import { boundedGet, FetchFailed } from './bounded-fetch.ts';
import { broughtTelegram, heardFrom } from './lag.ts';
import type { SourceDeps } from './deps.ts';
import { loadPosition, savePosition } from './positions.ts';

const SOURCE = 'jma-feed';
/** A long-term feed (`…_l.xml`) is polled once every this many intervals (docs/sources.md). */
const LONG_FEED_EVERY = 5;
/** Long-term feeds run to a few MB; anything far beyond is not a JMA feed. */
const MAX_FEED_BYTES = 16 * 1024 * 1024;
const MAX_BACKOFF_MS = 15 * 60_000;
/** Names the software to JMA's servers, as a polite client does. */
const USER_AGENT = 'Namazu (JMA feed source)';
const ENTRY_GRACE_MS = 10 * 60_000;

export interface JmaFeedOptions {
  urls: readonly string[];
  intervalMs: number;
  /** Time-out of one request, headers and body (default 30 s). */
  timeoutMs?: number;
  maxFeedBytes?: number;
  /**
   * How long an entry whose answer looks final (an HTTP 4xx, an answer that is not XML, XML the
   * ingest refuses) is fetched again at each poll before it is skipped for good (default 10 min):
   * a file listed before it reached every server of the host, or read while being written, is no
   * telegram lost.
   */
  entryGraceMs?: number;
}

/** What is kept per feed: its validators and the ids of its current entries already handled. */
interface FeedPosition {
  etag: string | null;
  lastModified: string | null;
  handled: string[];
}

interface Feed {
  url: string;
  long: boolean;
  position: FeedPosition | null;
  handled: Set<string>;
  failures: number;
  dueAt: number;
}

const isLongFeed = (url: string) => /_l\.xml$/.test(new URL(url).pathname);
function fileNameOf(url: string): string {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The first character after a byte-order mark and white space is `<`: what any XML document is. */
function startsAsXml(body: Buffer): boolean {
  let i = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09))
    i++;
  return body[i] === 0x3c;
}

/**
 * The JMA public XML feed source (docs/sources.md): polls the Atom feeds with conditional requests,
 * fetches every entry not handled yet and ingests it, oldest first. Failures of the network or of
 * one entry are logged and counted, never fatal.
 */
export class JmaFeedSource {
  private readonly feeds: Feed[];
  private readonly timeoutMs: number;
  private readonly maxFeedBytes: number;
  private readonly stopping = new AbortController();
  private loaded: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private busy: Promise<unknown> = Promise.resolve();
  private unreachable = false;
  /** Entries whose answer looked final, by id: when it first did (`entryGraceMs`). */
  private readonly failingSince = new Map<string, number>();

  constructor(
    private readonly deps: SourceDeps,
    private readonly options: JmaFeedOptions,
  ) {
    this.feeds = options.urls.map((url) => ({
      url,
      long: isLongFeed(url),
      position: null,
      handled: new Set(),
      failures: 0,
      dueAt: 0,
    }));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxFeedBytes = options.maxFeedBytes ?? MAX_FEED_BYTES;
  }

  /** Polls each feed when it is due, until stopped. */
  start(): void {
    // At 0 from the start: the alert's increase() would not count the first rejection.
    this.deps.metrics.sourceRejections.inc({ source: SOURCE }, 0);
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.busy;
  }

  /** Polls every feed once now, whatever their schedule. */
  pollOnce(): Promise<void> {
    return this.exclusive(async () => {
      for (const feed of this.feeds) await this.poll(feed);
    });
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    let loadFailures = 0;
    while (!signal.aborted) {
      let next: number;
      try {
        await this.exclusive(async () => {
          for (const feed of this.feeds)
            if (feed.dueAt <= Date.now() && !signal.aborted) await this.poll(feed);
        });
        loadFailures = 0;
        next = Math.min(...this.feeds.map((f) => f.dueAt));
      } catch (err) {
        // The stored positions could not be read (database unavailable): tried again with backoff.
        if (signal.aborted) break;
        loadFailures++;
        const retryMs = backoffDelay(loadFailures, this.options.intervalMs / 4, MAX_BACKOFF_MS);
        this.deps.log.warn(
          { reason: (err as Error).message, retryMs },
          'JMA feed positions not loaded; backing off',
        );
        next = Date.now() + retryMs;
      }
      await sleep(Math.max(0, next - Date.now()), undefined, { signal }).catch(() => {});
    }
  }

  /** One poll at a time: the timer and a caller of pollOnce never overlap. */
  private exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.busy.then(async () => {
      // A failed load (database unavailable) is tried again by the next poll.
      await (this.loaded ??= this.load().catch((err: unknown) => {
        this.loaded = undefined;
        throw err;
      }));
      await fn();
    });
    this.busy = run.catch(() => {});
    return run;
  }

  private async load(): Promise<void> {
    for (const feed of this.feeds) {
      feed.position = await loadPosition<FeedPosition>(this.deps.db, `${SOURCE} ${feed.url}`);
      feed.handled = new Set(feed.position?.handled ?? []);
    }
  }

  /**
   * Whether another feed (or this one) has handled the entry. A long-term feed's record counts only
   * for long-term feeds: its first record holds entries it never fetched (history, or an entry a
   * high-frequency feed failed to fetch or had not polled yet), which a high-frequency feed must
   * still ingest.
   */
  private isHandled(id: string, asking: Feed): boolean {
    return this.feeds.some((f) => (asking.long || !f.long) && f.handled.has(id));
  }

  private async poll(feed: Feed): Promise<void> {
    const { log, metrics } = this.deps;
    try {
      await this.fetchFeed(feed);
      heardFrom(this.deps, SOURCE);
      feed.failures = 0;
      feed.dueAt = Date.now() + this.options.intervalMs * (feed.long ? LONG_FEED_EVERY : 1);
      if (this.unreachable) {
        this.unreachable = false;
        log.info({ url: feed.url }, 'JMA feed reachable again');
      }
    } catch (err) {
      if (this.stopping.signal.aborted) return;
      feed.failures++;
      metrics.sourceRequests.inc({ source: SOURCE, outcome: 'failed' });
      const retryMs = backoffDelay(feed.failures, this.options.intervalMs / 4, MAX_BACKOFF_MS);
      feed.dueAt = Date.now() + retryMs;
      const detail = { url: feed.url, reason: (err as Error).message, retryMs };
      // Said once per outage; each retry after that only at debug level.
      if (!this.unreachable) {
        this.unreachable = true;
        log.warn(detail, 'JMA feed unreachable or invalid; backing off');
      } else log.debug(detail, 'JMA feed still failing');
      if (!(err instanceof FetchFailed || err instanceof AtomRejected))
        log.error({ err }, 'JMA feed poll failed');
    }
  }

  private async fetchFeed(feed: Feed): Promise<void> {
    const { position } = feed;
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    if (position?.etag) headers['if-none-match'] = position.etag;
    if (position?.lastModified) headers['if-modified-since'] = position.lastModified;
    const result = await boundedGet({
      url: feed.url,
      maxBytes: this.maxFeedBytes,
      timeoutMs: this.timeoutMs,
      headers,
      signal: this.stopping.signal,
    });
    if (result.status === 'not-modified') {
      this.deps.metrics.sourceRequests.inc({ source: SOURCE, outcome: 'not_modified' });
      return;
    }
    this.deps.metrics.sourceRequests.inc({ source: SOURCE, outcome: 'ok' });
    const entries = parseAtom(result.body.toString('utf8'));
    // A long-term feed seen for the first time holds days of history: it is only recorded.
    const baseline = position === null && feed.long;
    let complete = true;
    for (const entry of [...entries].reverse()) {
      if (this.isHandled(entry.id, feed) || baseline) continue;
      if (await this.ingestEntry(feed, entry)) feed.handled.add(entry.id);
      else complete = false;
    }
    // Only the entries still listed are kept: an entry that left the feed never comes back.
    const handled = entries.map((e) => e.id).filter((id) => baseline || this.isHandled(id, feed));
    feed.handled = new Set(handled);
    // An entry that left the feed during its grace is not asked about again.
    const graceMs = this.options.entryGraceMs ?? ENTRY_GRACE_MS;
    for (const [id, since] of this.failingSince)
      if (Date.now() - since > 2 * graceMs) this.failingSince.delete(id);
    // With an entry left to retry, the old validators stay, so the next poll sees the feed again.
    feed.position = {
      etag: complete ? result.etag : (position?.etag ?? null),
      lastModified: complete ? result.lastModified : (position?.lastModified ?? null),
      handled,
    };
    await savePosition(this.deps.db, `${SOURCE} ${feed.url}`, feed.position);
  }

  /**
   * Fetches and ingests one entry's XML. False when it should be tried again at the next poll. Only
   * a link on the feed's own origin is fetched, and only an XML answer is ingested: the file name
   * names a type, and must not turn some other answer into a telegram of that type.
   */
  private async ingestEntry(feed: Feed, entry: AtomEntry): Promise<boolean> {
    const { log, metrics } = this.deps;
    const refuse = (url: string, reason: string) => {
      this.failingSince.delete(entry.id);
      metrics.sourceRejections.inc({ source: SOURCE });
      log.warn({ url, entry: entry.id, reason }, 'JMA feed entry skipped');
      return true;
    };
    // An answer that looks final: tried again at the next poll until the grace has passed.
    const refuseAfterGrace = (url: string, reason: string) => {
      const now = Date.now();
      const since = this.failingSince.get(entry.id) ?? now;
      if (now - since >= (this.options.entryGraceMs ?? ENTRY_GRACE_MS)) return refuse(url, reason);
      this.failingSince.set(entry.id, since);
      log.info(
        { url, entry: entry.id, reason },
        'JMA feed entry not usable yet; fetched again at the next poll',
      );
      return false;
    };
    let url: string;
    try {
      const link = new URL(entry.link, feed.url);
      if (link.origin !== new URL(feed.url).origin) return refuse(entry.link, 'link outside the feed origin');
      url = link.toString();
    } catch {
      return refuse(entry.link, 'invalid link');
    }
    let body: Buffer;
    try {
      const result = await boundedGet({
        url,
        headers: { 'user-agent': USER_AGENT },
        maxBytes: this.deps.config.maxTelegramBytes,
        timeoutMs: this.timeoutMs,
        signal: this.stopping.signal,
      });
      // A 304 to a request that was not conditional (a cache in the way): nothing was read, try again.
      if (result.status !== 'ok') throw new FetchFailed('unexpected 304', true);
      body = result.body;
    } catch (err) {
      if (!(err instanceof FetchFailed)) throw err;
      metrics.sourceRequests.inc({ source: SOURCE, outcome: 'failed' });
      if (err.transient) {
        log.debug({ url, reason: err.message }, 'JMA feed entry not fetched; tried again at the next poll');
        return false;
      }
      // An HTTP error may pass (a file not on every server yet); a redirect elsewhere, a body over
      // the limit will not.
      return err.status === null ? refuse(url, err.message) : refuseAfterGrace(url, err.message);
    }
    metrics.sourceRequests.inc({ source: SOURCE, outcome: 'ok' });
    if (!startsAsXml(body)) return refuseAfterGrace(url, 'the answer is not XML');
    const outcome = await ingestTelegram({ ...this.deps, source: SOURCE }, body, {
      fileName: fileNameOf(url),
      receivedTime: this.deps.clock.now(),
    });
    if (!outcome.ok) return refuseAfterGrace(url, `refused by the ingest: ${outcome.reason}`);
    this.failingSince.delete(entry.id);
    if (!outcome.stored.duplicate) broughtTelegram(this.deps, SOURCE);
    return true;
  }
}
