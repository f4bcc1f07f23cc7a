// Times in posts: Japan time (JST, UTC+09:00, no daylight saving) with the zone named.

const JST_OFFSET_MS = 9 * 60 * 60 * 1000;

/**
 * An ISO 8601 time as Japan time: "2024/04/17 23:14 JST" (ja) or "2024-04-17 23:14 JST" (en), with
 * the seconds when they are not zero. The text as given when it is not a time.
 */
export function japanTime(iso: string, lang: 'ja' | 'en'): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const t = new Date(ms + JST_OFFSET_MS).toISOString(); // the JST wall clock, written as if UTC
  const separator = lang === 'ja' ? '/' : '-';
  const date = t.slice(0, 10).replaceAll('-', separator);
  const seconds = t.slice(17, 19);
  return `${date} ${t.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`} JST`;
}
