// ntfy's publish: a plain-text body with the Title, Priority and Tags headers. HTTP header values
// are ASCII here: a title with other characters is sent as RFC 2047 encoded words, which ntfy decodes.
import { clip, clipBytes } from '../clip.ts';
import type { Category, Severity } from '../types.ts';
import type { Described, Lang } from '../wording.ts';
import { plainLines } from './text.ts';

/** ntfy's default message size limit (bytes of the body; a larger one becomes an attachment). */
export const NTFY_LIMITS = { body: 4096, title: 250 } as const;

/** ntfy's priority names: 5 urgent … 2 low. */
const PRIORITIES: Record<Severity, string> = {
  urgent: 'urgent',
  high: 'high',
  default: 'default',
  low: 'low',
};

/** A tag that ntfy shows as an emoji, then a word naming the kind of telegram. */
const TAGS: Record<Category, [string, string]> = {
  eew: ['rotating_light', 'eew'],
  earthquake: ['warning', 'earthquake'],
  tsunami: ['ocean', 'tsunami'],
  volcano: ['volcano', 'volcano'],
  weather: ['cloud_with_rain', 'weather'],
  other: ['information_source', 'jma'],
};

export interface NtfyRequest {
  headers: Record<string, string>;
  body: string;
}

export function ntfyRequest(
  post: Described,
  lang: Lang,
  summary: { severity: Severity; category: Category; mark: 'training' | 'test' | null },
): NtfyRequest {
  const tags = [...TAGS[summary.category], ...(summary.mark === null ? [] : [summary.mark])];
  return {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(clip(post.title, NTFY_LIMITS.title)),
      priority: PRIORITIES[summary.severity],
      tags: tags.join(','),
    },
    body: clipBytes(post.mark + plainLines(post, lang).join('\n'), NTFY_LIMITS.body),
  };
}

/** Longest run of UTF-8 bytes in one encoded word: 45 bytes are 60 base64 characters, 72 with the frame. */
const WORD_BYTES = 45;

/**
 * A header value in ASCII: printable ASCII as it is; anything else as RFC 2047 "B" encoded words
 * (`=?UTF-8?B?…?=`), each within RFC 2047's 75 characters and ending on a whole character,
 * separated by spaces (which a decoder drops between encoded words).
 */
export function headerText(value: string): string {
  const flat = value.replace(/[\r\n\t]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(flat)) return flat;
  const words: string[] = [];
  let chunk = '';
  for (const char of flat) {
    if (Buffer.byteLength(chunk + char) > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk !== '') words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(' ');
}
