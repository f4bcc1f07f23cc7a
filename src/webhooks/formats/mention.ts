// A chat post's mention (docs/webhooks.md "Mentions"): a Discord or Slack subscription may name one
// mention (a role, a user, @here, @everyone) that starts its posts of the telegrams whose severity
// reaches its threshold, and that only: nothing in a telegram itself ever pings anyone. Pure.
import { clip } from '../clip.ts';
import type { Severity } from '../types.ts';
import { DISCORD_LIMITS } from './discord.ts';
import { SLACK_LIMITS } from './slack.ts';

/** From which severity posts mention: `urgent` (the default) alone, or `high` and `urgent`. */
export const MENTION_THRESHOLDS = ['urgent', 'high'] as const;
export type MentionThreshold = (typeof MENTION_THRESHOLDS)[number];

export interface Mention {
  /** As the service writes it: `<@&role id>`, `<@user id>`, `@here`, `@everyone`; Slack's `<!here>`… */
  text: string;
  on: MentionThreshold;
  /** Whatever the severity: a test its owner sends to see the mention ping. */
  always?: boolean;
}

/** The mentions each chat service reads in a webhook's message, one per subscription. */
const PATTERNS = {
  // Snowflakes are 17 to 20 digits.
  discord: /^(?:@everyone|@here|<@&\d{17,20}>|<@!?\d{17,20}>)$/,
  // Special mentions, a user (U…, W…), a user group.
  slack: /^(?:<!channel>|<!here>|<!everyone>|<@[UW][A-Z0-9]{2,20}>|<!subteam\^[A-Z0-9]{2,20}>)$/,
} as const;

/** Whether `format` posts mentions at all (Discord and Slack). */
export const mentionsIn = (format: string): format is keyof typeof PATTERNS =>
  Object.hasOwn(PATTERNS, format);

/** Whether `text` is a mention `format`'s service reads. */
export const isMention = (format: string, text: string): boolean =>
  mentionsIn(format) && PATTERNS[format].test(text);

/** Whether a post of this severity carries the mention. */
export function mentionApplies(severity: Severity, mention: Pick<Mention, 'on' | 'always'>): boolean {
  return mention.always === true || severity === 'urgent' || (mention.on === 'high' && severity === 'high');
}

/** Discord's `allowed_mentions` that lets this mention, and nothing else, ping. */
function allowedMentions(text: string): object {
  if (text === '@everyone' || text === '@here') return { parse: ['everyone'] };
  const role = /^<@&(\d+)>$/.exec(text);
  if (role) return { parse: [], roles: [role[1]] };
  return { parse: [], users: [/^<@!?(\d+)>$/.exec(text)![1]] };
}

/** A Discord body with the mention before its content. */
export function discordWithMention(body: { content: string }, text: string): object {
  return {
    ...body,
    content: clip(`${text} ${body.content}`, DISCORD_LIMITS.content),
    allowed_mentions: allowedMentions(text),
  };
}

/**
 * A Slack body with the mention before its text (the notification) and its first section (what the
 * channel shows), where Slack reads mentions.
 */
export function slackWithMention(body: { text: string; blocks: object[] }, text: string): object {
  const blocks = [...body.blocks];
  const at = blocks.findIndex((b) => (b as { type: string }).type === 'section' && 'text' in b);
  if (at === -1) {
    // After the header; a full message gives up its last fields' section (before the context).
    if (blocks.length >= SLACK_LIMITS.blocks) blocks.splice(-2, 1);
    blocks.splice(1, 0, { type: 'section', text: { type: 'mrkdwn', text } });
  } else {
    const section = blocks[at] as { text: { type: string; text: string } };
    // Clipped as slack.ts clips mrkdwn: no entity cut in two.
    const lead = clip(`${text} ${section.text.text}`, SLACK_LIMITS.section).replace(/&[a-z]*…$/, '…');
    blocks[at] = { ...section, text: { ...section.text, text: lead } };
  }
  return { ...body, text: clip(`${text} ${body.text}`, SLACK_LIMITS.text), blocks };
}

export type MentionCheck =
  | { ok: true; value: { mention: string | null; mentionOn: MentionThreshold } }
  | { ok: false; field: 'mention' | 'mentionOn' };

/**
 * A subscription's mention as asked for (`undefined`, `null` and blanks: none), checked for its
 * format: one the service reads, with Discord or Slack only. Without a mention the threshold means
 * nothing and is stored as the default (a mention removed while `high` stays chosen is no error).
 */
export function checkMention(input: {
  format: string;
  mention?: string | null;
  mentionOn?: string | null;
}): MentionCheck {
  const mention = input.mention?.trim() || null;
  const on = input.mentionOn ?? 'urgent';
  if (mention !== null && !isMention(input.format, mention)) return { ok: false, field: 'mention' };
  if (!(MENTION_THRESHOLDS as readonly string[]).includes(on)) return { ok: false, field: 'mentionOn' };
  return { ok: true, value: { mention, mentionOn: mention === null ? 'urgent' : (on as MentionThreshold) } };
}
