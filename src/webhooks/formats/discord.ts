// Discord's incoming webhook (Execute Webhook): `content` and one embed, within Discord's limits.
import { clip } from '../clip.ts';
import type { Severity } from '../types.ts';
import type { Described } from '../wording.ts';

/** Discord's documented limits of a message and its embeds (characters). */
export const DISCORD_LIMITS = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

/** Red, orange, yellow, blue; grey for a training or test telegram. */
const COLOURS: Record<Severity, number> = {
  urgent: 0xd32f2f,
  high: 0xf57c00,
  default: 0xfbc02d,
  low: 0x1e88e5,
};
const MARKED_COLOUR = 0x9e9e9e;

interface EmbedField {
  name: string;
  value: string;
  inline: boolean;
}

export function discordBody(
  post: Described,
  severity: Severity,
  reportTime: string,
): { content: string; [field: string]: unknown } {
  const title = clip(post.title, DISCORD_LIMITS.title);
  const footer = clip(`${post.time} · ${post.source}`, DISCORD_LIMITS.footer);
  let description = clip(post.headline ?? '', DISCORD_LIMITS.description);
  const fields: EmbedField[] = post.fields.slice(0, DISCORD_LIMITS.fields).map((f) => ({
    name: clip(f.name, DISCORD_LIMITS.fieldName),
    value: clip(f.value, DISCORD_LIMITS.fieldValue),
    inline: f.value.length <= 24,
  }));
  // The whole embed within the total: a long headline gives way first, then the last fields.
  const size = () =>
    title.length +
    footer.length +
    description.length +
    fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  while (size() > DISCORD_LIMITS.total) {
    const excess = size() - DISCORD_LIMITS.total;
    if (description.length > 1000)
      description = clip(description, Math.max(1000, description.length - excess));
    else if (fields.length > 0) fields.pop();
    else description = clip(description, Math.max(0, description.length - excess));
  }
  const time = Date.parse(reportTime);
  return {
    content: clip(post.gist === '' ? post.title : `${post.title} ${post.gist}`, DISCORD_LIMITS.content),
    embeds: [
      {
        title,
        ...(description === '' ? {} : { description }),
        color: post.mark === '' ? COLOURS[severity] : MARKED_COLOUR,
        ...(fields.length === 0 ? {} : { fields }),
        ...(Number.isNaN(time) ? {} : { timestamp: new Date(time).toISOString() }),
        footer: { text: footer },
      },
    ],
    // Nothing in a telegram may ping anyone.
    allowed_mentions: { parse: [] },
  };
}
