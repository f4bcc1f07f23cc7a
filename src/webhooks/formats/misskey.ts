// Misskey's notes/create: the note's text with the access token (`i`) in the body.
import { clip } from '../clip.ts';
import type { Described, Lang } from '../wording.ts';
import { plainLines } from './text.ts';

/** Misskey's default maximum note length (characters; an instance may allow more, none less). */
export const MISSKEY_LIMITS = { text: 3000 } as const;

/** Who sees a note: everyone (and the public timelines), the home timelines only, or followers only. */
export const MISSKEY_VISIBILITIES = ['public', 'home', 'followers'] as const;
export type MisskeyVisibility = (typeof MISSKEY_VISIBILITIES)[number];

export interface MisskeyOptions {
  /** The account's access token (with the "write:notes" permission), kept as a secret. */
  token: string;
  /** The note's visibility; `public` unless chosen. */
  visibility?: MisskeyVisibility;
  /** Keep the note off federation. */
  localOnly?: boolean;
}

/** A subscription's options for its notes, with its token opened; null without one (any other format). */
export function misskeyOptions(
  token: string | null,
  note: { visibility: MisskeyVisibility | null; localOnly: boolean },
): MisskeyOptions | null {
  if (token === null) return null;
  // `localOnly` only when chosen: Misskey federates a note by default.
  return { token, visibility: note.visibility ?? 'public', ...(note.localOnly ? { localOnly: true } : {}) };
}

export function misskeyBody(post: Described, lang: Lang, options: MisskeyOptions): object {
  // A "@name" in a note mentions (and notifies) that account: none may come from a telegram.
  const text = [post.title, ...plainLines(post, lang)].join('\n').replaceAll('@', '＠');
  return {
    i: options.token,
    text: clip(text, MISSKEY_LIMITS.text),
    visibility: options.visibility ?? 'public',
    ...(options.localOnly === undefined ? {} : { localOnly: options.localOnly }),
  };
}
