// Misskey's notes/create: the note's text with the access token (`i`) in the body.
import { clip } from '../clip.ts';
import type { Described, Lang } from '../wording.ts';
import { plainLines } from './text.ts';

/** Misskey's default maximum note length (characters; an instance may allow more, none less). */
export const MISSKEY_LIMITS = { text: 3000 } as const;

export type MisskeyVisibility = 'public' | 'home' | 'followers';

export interface MisskeyOptions {
  /** The account's access token (with the "write:notes" permission), kept as a secret. */
  token: string;
  /** The note's visibility; `public` unless chosen. */
  visibility?: MisskeyVisibility;
  /** Keep the note off federation. */
  localOnly?: boolean;
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
