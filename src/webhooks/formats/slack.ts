// Slack's incoming webhook: `text` (the notification and the fallback) and Block Kit blocks,
// within Slack's limits.
import { clip } from '../clip.ts';
import type { Severity } from '../types.ts';
import type { Described } from '../wording.ts';

/** Slack's documented limits (characters; blocks per message; fields per section). */
export const SLACK_LIMITS = {
  text: 3000,
  header: 150,
  section: 3000,
  field: 2000,
  fieldsPerSection: 10,
  context: 2000,
  blocks: 50,
} as const;

const EMOJI: Record<Severity, string> = {
  urgent: ':rotating_light:',
  high: ':warning:',
  default: ':information_source:',
  low: ':information_source:',
};

/** Slack's mrkdwn reads &, < and > as control characters: written as entities. */
const escape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Escapes, then clips to `max` without leaving a cut entity behind. */
function mrkdwn(text: string, max: number): string {
  const escaped = escape(text);
  if (escaped.length <= max) return escaped;
  return clip(escaped, max).replace(/&[a-z]*…$/, '…');
}

export function slackBody(post: Described, severity: Severity): { text: string; blocks: object[] } {
  const blocks: object[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(post.title, SLACK_LIMITS.header), emoji: true },
    },
  ];
  const lead = leadText(post, severity);
  if (lead !== '') blocks.push({ type: 'section', text: { type: 'mrkdwn', text: lead } });
  const room = SLACK_LIMITS.blocks - blocks.length - 1; // keep one for the context
  for (let i = 0; i < post.fields.length && blocks.length - 1 < room; i += SLACK_LIMITS.fieldsPerSection) {
    const fields = post.fields.slice(i, i + SLACK_LIMITS.fieldsPerSection).map((f) => ({
      type: 'mrkdwn',
      text: mrkdwn(`*${f.name}*\n${f.value}`, SLACK_LIMITS.field),
    }));
    blocks.push({ type: 'section', fields });
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: mrkdwn(`${post.time} · ${post.source}`, SLACK_LIMITS.context) }],
  });
  const text = post.gist === '' ? post.title : `${post.title} ${post.gist}`;
  // The top-level text is mrkdwn too (notifications show it); the header alone is plain text.
  return { text: mrkdwn(text, SLACK_LIMITS.text), blocks };
}

/** The gist in bold after the severity's emoji, then the headline: one section within its limit. */
function leadText(post: Described, severity: Severity): string {
  const first = post.gist === '' ? '' : `${EMOJI[severity]} *${mrkdwn(post.gist, SLACK_LIMITS.section / 2)}*`;
  if (post.headline === null) return first;
  if (first === '') return mrkdwn(post.headline, SLACK_LIMITS.section);
  return `${first}\n${mrkdwn(post.headline, SLACK_LIMITS.section - first.length - 1)}`;
}
