// A ready-made post for one service (docs/webhooks.md, "Ready-made posts"): the summary of a
// telegram, in Japanese or English, laid out as the request body and headers that service expects.
// Pure: the delivery sends what this returns to the subscription's URL.
import { discordBody } from './formats/discord.ts';
import {
  discordWithMention,
  mentionApplies,
  slackWithMention,
  type Mention,
  type MentionThreshold,
} from './formats/mention.ts';
import {
  misskeyBody,
  misskeyOptions,
  type MisskeyOptions,
  type MisskeyVisibility,
} from './formats/misskey.ts';
import { ntfyRequest } from './formats/ntfy.ts';
import { slackBody } from './formats/slack.ts';
import type { TelegramSummary } from './types.ts';
import { describe, type Lang } from './wording.ts';

export const postFormats = ['discord', 'slack', 'ntfy', 'misskey'] as const;
export type PostFormat = (typeof postFormats)[number];

export interface RenderOptions {
  /** Required for `misskey`. */
  misskey?: MisskeyOptions;
  /** `discord` and `slack`: the subscription's mention, for the posts whose severity reaches it. */
  mention?: Mention;
}

export interface RenderedPost {
  /** Lower-case header names; every value ASCII. */
  headers: Record<string, string>;
  body: string;
}

/** A subscription's options of its posts: its Misskey token and note options, its mention. */
export function renderOptionsOf(
  token: string | null,
  s: {
    visibility: MisskeyVisibility | null;
    localOnly: boolean;
    mention: string | null;
    mentionOn: MentionThreshold;
  },
): RenderOptions {
  const misskey = misskeyOptions(token, s);
  return {
    ...(misskey === null ? {} : { misskey }),
    ...(s.mention === null ? {} : { mention: { text: s.mention, on: s.mentionOn } }),
  };
}

/** Thrown for a `misskey` post without its token: a subscription must be refused before it gets here. */
export class MissingTokenError extends Error {}

const json = (body: object): RenderedPost => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export function renderPost(
  format: PostFormat,
  summary: TelegramSummary,
  lang: Lang,
  options: RenderOptions = {},
): RenderedPost {
  const post = describe(summary, lang);
  const mention =
    options.mention && mentionApplies(summary.severity, options.mention) ? options.mention.text : null;
  switch (format) {
    case 'discord': {
      const body = discordBody(post, summary.severity, summary.reportTime);
      return json(mention === null ? body : discordWithMention(body, mention));
    }
    case 'slack': {
      const body = slackBody(post, summary.severity);
      return json(mention === null ? body : slackWithMention(body, mention));
    }
    case 'ntfy':
      return ntfyRequest(post, lang, summary);
    case 'misskey': {
      if (!options.misskey?.token) throw new MissingTokenError('a misskey post needs its token');
      return json(misskeyBody(post, lang, options.misskey));
    }
  }
}
