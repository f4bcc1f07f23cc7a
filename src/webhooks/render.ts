// A ready-made post for one service (docs/webhooks.md, "Ready-made posts"): the summary of a
// telegram, in Japanese or English, laid out as the request body and headers that service expects.
// Pure: the delivery sends what this returns to the subscription's URL.
import { discordBody } from './formats/discord.ts';
import { misskeyBody, type MisskeyOptions } from './formats/misskey.ts';
import { ntfyRequest } from './formats/ntfy.ts';
import { slackBody } from './formats/slack.ts';
import type { TelegramSummary } from './types.ts';
import { describe, type Lang } from './wording.ts';

export const postFormats = ['discord', 'slack', 'ntfy', 'misskey'] as const;
export type PostFormat = (typeof postFormats)[number];

export interface RenderOptions {
  /** Required for `misskey`. */
  misskey?: MisskeyOptions;
}

export interface RenderedPost {
  /** Lower-case header names; every value ASCII. */
  headers: Record<string, string>;
  body: string;
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
  switch (format) {
    case 'discord':
      return json(discordBody(post, summary.severity, summary.reportTime));
    case 'slack':
      return json(slackBody(post, summary.severity));
    case 'ntfy':
      return ntfyRequest(post, lang, summary);
    case 'misskey': {
      if (!options.misskey?.token) throw new MissingTokenError('a misskey post needs its token');
      return json(misskeyBody(post, lang, options.misskey));
    }
  }
}
