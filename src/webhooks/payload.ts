/**
 * What a delivery posts (docs/webhooks.md "Formats"): format `namazu` sends the service.v2 `data`
 * message of the telegram, the others a ready-made post (render.ts) of its summary. Each telegram is
 * read, summarised and serialised once for all its subscriptions: the builder keeps the last few
 * telegrams' bodies (a burst to a thousand subscriptions reads each once), within a byte budget
 * (docs/operations.md "Memory": a telegram may be as large as NAMAZU_MAX_TELEGRAM_BYTES). The queuer
 * hands it the telegrams it is queueing (`prime`), so that the first attempts read nothing more; the
 * summary is made only when a ready-made post asks for it.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Queryable } from '../db/types.ts';
import { dataMessage } from '../realtime/protocol.ts';
import { loadConversionOf } from '../telegrams/conversion-of.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import { loadTelegram } from '../telegrams/store.ts';
import { mentionApplies } from './formats/mention.ts';
import { postFormats, renderPost, type PostFormat, type RenderOptions } from './render.ts';
import { summarize, type TelegramSummary } from './summary.ts';

const gunzipAsync = promisify(gunzip);

/** Telegrams whose bodies the builder keeps, and the bytes they may hold together. */
const KEPT_TELEGRAMS = 32;
export const KEPT_PAYLOAD_BYTES = 32 * 1024 * 1024;
/** A kept telegram's cost beyond its bytes (objects, map slots), and what one counts while read. */
const KEPT_ENTRY_BYTES = 1024;

export interface Payload {
  headers: Record<string, string>;
  body: Buffer;
}

interface Kept {
  prepared: Promise<Prepared | null>;
  /** Counted in `keptBytes`. */
  bytes: number;
}

interface Prepared {
  record: TelegramRecord;
  /** The `data` message (format `namazu`). */
  message: Buffer;
  /** Made when a ready-made post first asks for it. */
  summary: Promise<TelegramSummary | null> | null;
  /**
   * Rendered posts by format, language and mention (a misskey post holds its subscription's token and
   * note options: rendered per delivery).
   */
  posts: Map<string, Payload>;
}

export function isPostFormat(format: string): format is PostFormat {
  return (postFormats as readonly string[]).includes(format);
}

/** The JSON conversion's document of a telegram (itself when it is one), parsed; null when none. */
export async function documentOf(q: Queryable, record: TelegramRecord): Promise<unknown | null> {
  const conversion =
    record.format === 'json' ? record : record.head.xml ? await loadConversionOf(q, record.id) : null;
  if (!conversion) return null;
  const bytes = conversion.compression === 'gzip' ? await gunzipAsync(conversion.body) : conversion.body;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * The `data` message a delivery of `record` posts (format `namazu`), `passing` as on a socket: ingest
 * at reception, then this process (`serverName`) when the message is made.
 */
export function deliveryMessage(record: TelegramRecord, serverName: string): Buffer {
  return dataMessage(record, [
    { name: 'ingest', time: record.receivedTime },
    { name: serverName, time: new Date().toISOString() },
  ]);
}

/** What a prepared telegram holds before its summary: its body and its message. */
const preparedBytes = (p: Prepared) => p.record.body.length + p.message.length;
/** What a summary holds, over-estimated: its text at 2 bytes a character, twice (the parsed objects). */
const summaryBytes = (summary: TelegramSummary) => JSON.stringify(summary).length * 4;

export class PayloadBuilder {
  /** Least recently used first. */
  private readonly kept = new Map<number, Kept>();
  private keptBytes = 0;

  constructor(
    private readonly db: Queryable,
    /** This process's name in `passing`. */
    private readonly serverName: string,
  ) {}

  /**
   * The body and content headers for one delivery of telegram `serial`; null when it is no longer
   * stored. `options`: the subscription's Misskey token and note options, its mention.
   */
  async payloadFor(
    serial: number,
    format: string,
    lang: 'ja' | 'en',
    options: RenderOptions = {},
  ): Promise<Payload | null> {
    const prepared = await this.prepared(serial);
    if (!prepared) return null;
    if (!isPostFormat(format))
      return { headers: { 'content-type': 'application/json' }, body: prepared.message };
    const summary = await this.summaryOf(serial, prepared);
    if (!summary) return null;
    if (format === 'misskey') return this.render(format, summary, lang, options);
    // A mention that applies makes a post of its own, kept as the others (many share @here, @everyone).
    const mention =
      options.mention && mentionApplies(summary.severity, options.mention) ? options.mention : null;
    const key = mention === null ? `${format}/${lang}` : `${format}/${lang}/${mention.text}`;
    let post = prepared.posts.get(key);
    if (!post) {
      post = this.render(format, summary, lang, mention === null ? {} : { mention });
      prepared.posts.set(key, post);
      this.count(serial, post.body.length);
    }
    return post;
  }

  /**
   * A telegram about to be delivered, as the queuer read it: its message is made now (the database
   * is not read again for it). Nothing when it is already kept.
   */
  prime(record: TelegramRecord): void {
    if (!this.kept.has(record.serial)) this.keep(record.serial, this.prepare(record.serial, record));
  }

  /** The telegram's summary, made once (from its JSON conversion when it has one). */
  private summaryOf(serial: number, prepared: Prepared): Promise<TelegramSummary | null> {
    if (!prepared.summary) {
      prepared.summary = documentOf(this.db, prepared.record).then((document) =>
        summarize(prepared.record, document),
      );
      prepared.summary.then(
        (summary) => summary && this.count(serial, summaryBytes(summary)),
        // Made again by the next delivery that asks.
        () => (prepared.summary = null),
      );
    }
    return prepared.summary;
  }

  private render(
    format: PostFormat,
    summary: TelegramSummary,
    lang: 'ja' | 'en',
    options: RenderOptions,
  ): Payload {
    const post = renderPost(format, summary, lang, options);
    return { headers: post.headers, body: Buffer.from(post.body) };
  }

  /** The bytes the kept telegrams hold, by this builder's count. */
  get heldBytes(): number {
    return this.keptBytes;
  }

  private prepared(serial: number): Promise<Prepared | null> {
    const found = this.kept.get(serial);
    if (found) {
      // Most recently used last.
      this.kept.delete(serial);
      this.kept.set(serial, found);
      return found.prepared;
    }
    return this.keep(serial, this.prepare(serial));
  }

  private keep(serial: number, prepared: Promise<Prepared | null>): Promise<Prepared | null> {
    const entry: Kept = { prepared, bytes: 0 };
    this.kept.set(serial, entry);
    this.count(serial, KEPT_ENTRY_BYTES);
    entry.prepared.then(
      (p) => p && this.kept.get(serial) === entry && this.count(serial, preparedBytes(p)),
      () => this.kept.get(serial) === entry && this.forget(serial),
    );
    return entry.prepared;
  }

  /** Adds `bytes` to a kept telegram's count (if it is still kept), then lets the oldest go past the budget. */
  private count(serial: number, bytes: number): void {
    const entry = this.kept.get(serial);
    if (!entry) return;
    entry.bytes += bytes;
    this.keptBytes += bytes;
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= KEPT_TELEGRAMS && this.keptBytes <= KEPT_PAYLOAD_BYTES) break;
      this.forget(oldest);
    }
  }

  private forget(serial: number): void {
    const entry = this.kept.get(serial);
    if (!entry) return;
    this.kept.delete(serial);
    this.keptBytes -= entry.bytes;
  }

  private async prepare(serial: number, read?: TelegramRecord): Promise<Prepared | null> {
    const record = read ?? (await loadTelegram(this.db, serial));
    if (!record) return null;
    return {
      record,
      message: deliveryMessage(record, this.serverName),
      summary: null,
      posts: new Map(),
    };
  }
}
