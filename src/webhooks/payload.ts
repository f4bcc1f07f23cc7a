/**
 * What a delivery posts (docs/webhooks.md "Formats"): format `namazu` sends the service.v2 `data`
 * message of the telegram, the others a ready-made post (render.ts) of its summary. Each telegram is
 * read, summarised and serialised once for all its subscriptions: the builder keeps the last few
 * telegrams' bodies (a burst to a thousand subscriptions reads each once).
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Queryable } from '../db/types.ts';
import { dataMessage } from '../realtime/protocol.ts';
import { loadConversionOf } from '../telegrams/conversion-of.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import { loadTelegram } from '../telegrams/store.ts';
import { postFormats, renderPost, type PostFormat } from './render.ts';
import { summarize, type TelegramSummary } from './summary.ts';

const gunzipAsync = promisify(gunzip);

/** Telegrams whose bodies the builder keeps. */
const KEPT_TELEGRAMS = 32;

export interface Payload {
  headers: Record<string, string>;
  body: Buffer;
}

interface Prepared {
  record: TelegramRecord;
  /** The `data` message (format `namazu`). */
  message: Buffer;
  summary: TelegramSummary | null;
  /** Rendered posts by format and language (the misskey post holds its token: rendered per delivery). */
  posts: Map<string, Payload>;
}

export function isPostFormat(format: string): format is PostFormat {
  return (postFormats as readonly string[]).includes(format);
}

/** The JSON conversion's document of a telegram (itself when it is one), parsed; null when none. */
async function documentOf(q: Queryable, record: TelegramRecord): Promise<unknown | null> {
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

export class PayloadBuilder {
  private readonly kept = new Map<number, Promise<Prepared | null>>();

  constructor(
    private readonly db: Queryable,
    /** This process's name in `passing`. */
    private readonly serverName: string,
  ) {}

  /** The body and content headers for one delivery of telegram `serial`; null when it is no longer stored. */
  async payloadFor(
    serial: number,
    format: string,
    lang: 'ja' | 'en',
    token: string | null,
  ): Promise<Payload | null> {
    const prepared = await this.prepared(serial);
    if (!prepared) return null;
    if (!isPostFormat(format))
      return { headers: { 'content-type': 'application/json' }, body: prepared.message };
    if (!prepared.summary) return null;
    const key = `${format}/${lang}`;
    if (format === 'misskey') return this.render(format, prepared.summary, lang, token);
    let post = prepared.posts.get(key);
    if (!post) {
      post = this.render(format, prepared.summary, lang, token);
      prepared.posts.set(key, post);
    }
    return post;
  }

  private render(
    format: PostFormat,
    summary: TelegramSummary,
    lang: 'ja' | 'en',
    token: string | null,
  ): Payload {
    const post = renderPost(format, summary, lang, token === null ? {} : { misskey: { token } });
    return { headers: post.headers, body: Buffer.from(post.body) };
  }

  private prepared(serial: number): Promise<Prepared | null> {
    let found = this.kept.get(serial);
    if (found) {
      // Most recently used last.
      this.kept.delete(serial);
      this.kept.set(serial, found);
      return found;
    }
    found = this.prepare(serial);
    this.kept.set(serial, found);
    found.catch(() => this.kept.delete(serial));
    while (this.kept.size > KEPT_TELEGRAMS) this.kept.delete(this.kept.keys().next().value!);
    return found;
  }

  private async prepare(serial: number): Promise<Prepared | null> {
    const record = await loadTelegram(this.db, serial);
    if (!record) return null;
    const document = await documentOf(this.db, record);
    return {
      record,
      // `passing` as on a socket: ingest at reception, then this server when the message was made.
      message: dataMessage(record, [
        { name: 'ingest', time: record.receivedTime },
        { name: this.serverName, time: new Date().toISOString() },
      ]),
      summary: summarize(record, document),
      posts: new Map(),
    };
  }
}
