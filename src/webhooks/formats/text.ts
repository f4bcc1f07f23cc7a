// The plain-text layout shared by the formats without structure of their own (ntfy, Misskey):
// the gist, the headline, one "label: value" line per field, then the time and the source.
import type { Described, Lang } from '../wording.ts';

const COLON = { ja: '：', en: ': ' } as const;

export function plainLines(post: Described, lang: Lang): string[] {
  return [
    ...(post.gist === '' ? [] : [post.gist]),
    ...(post.headline === null ? [] : [post.headline]),
    ...post.fields.map((f) => `${f.name}${COLON[lang]}${f.value}`),
    `${post.time} ${post.source}`,
  ];
}
