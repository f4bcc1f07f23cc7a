/**
 * The start of a refusing receiver's response body, kept with the failed attempt so that its owner
 * sees why (docs/webhooks.md "Deliveries": Discord's `{"message": "Invalid Webhook Token"}`, a
 * proxy's error page). Bounded in bytes and in the time waited for them beyond the status line.
 */
import type { Readable } from 'node:stream';

/** Bytes of a refusing response's body kept. */
export const EXCERPT_BYTES = 1024;
/** How long an attempt waits for them after the status line (a body that trickles is cut there). */
export const EXCERPT_WAIT_MS = 250;

/** Control characters go (a text column refuses NUL; the others only garble a page), but for tabs and line breaks. */
const withoutControls = (text: string) =>
  text.replace(/\p{Cc}/gu, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : ''));

/**
 * Collects the first `EXCERPT_BYTES` of `body` as it is read elsewhere (the sender reads it to keep
 * the connection); `text()` waits until they are in, the body ended, or `EXCERPT_WAIT_MS` passed,
 * and gives them as text (invalid UTF-8 replaced, controls dropped), or null when there were none.
 */
export function excerptOf(body: Readable): { text(): Promise<string | null> } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let done = false;
  let wake: () => void = () => {};
  const finish = () => {
    done = true;
    wake();
  };
  body.on('data', (chunk: Buffer) => {
    if (kept >= EXCERPT_BYTES) return;
    const part = chunk.subarray(0, EXCERPT_BYTES - kept);
    chunks.push(part);
    kept += part.length;
    if (kept >= EXCERPT_BYTES) finish();
  });
  body.on('end', finish);
  body.on('close', finish);
  return {
    async text() {
      if (!done) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, EXCERPT_WAIT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      // Streaming: a character cut at the byte limit is left out rather than replaced.
      const text = withoutControls(new TextDecoder().decode(Buffer.concat(chunks), { stream: true })).trim();
      return text === '' ? null : text;
    },
  };
}
