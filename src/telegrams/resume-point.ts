/**
 * Where a resuming connection starts (docs/realtime.md "Resume"): the serial of the telegram a client
 * last handled, named by its id (`after` of the socket start, `after` or `Last-Event-ID` of the
 * stream). A telegram the store no longer holds (unknown, or pruned by retention) cannot anchor a
 * catch-up, nor can one more than `maxBehind` stored telegrams back: the client reads the list
 * instead (an anonymous client of the public streams, which cannot, follows the live stream). A
 * `maxBehind` of 0 refuses every resume.
 */
import type { Queryable } from '../db/types.ts';

/** A telegram id: the SHA-384 hex of its body as delivered (docs/api-contract.md). */
export const TELEGRAM_ID_PATTERN = '^[0-9a-f]{96}$';
const TELEGRAM_ID = new RegExp(TELEGRAM_ID_PATTERN);

/** Why an id cannot anchor a resume, each with its message. */
export type ResumeRefusal = 'malformed' | 'off' | 'unknown' | 'tooOld';
export type ResumePoint =
  { ok: true; serial: number } | { ok: false; reason: ResumeRefusal; message: string };

/** The documented 400 messages, naming the field the id came in. */
export const resumeMessages = {
  malformed: (field: string) => `The \`${field}\` is not a telegram id (96 lowercase hex characters).`,
  unknown: (field: string) =>
    `The \`${field}\` telegram is not stored (unknown, or deleted by retention); read the telegram list.`,
  tooOld: (field: string, max: number) =>
    `The \`${field}\` telegram is more than ${max} telegrams back; read the telegram list.`,
  off: (field: string) =>
    `This server does not resume after a telegram (\`${field}\`); read the telegram list.`,
} as const;

export type ResumeMessages = typeof resumeMessages;

/** The same refusals on the public streams: an anonymous client cannot read the list. */
export const publicResumeMessages: ResumeMessages = {
  malformed: resumeMessages.malformed,
  unknown: (field) =>
    `The \`${field}\` telegram is not stored (unknown, or deleted by retention); connect without it to follow the live stream.`,
  tooOld: (field, max) =>
    `The \`${field}\` telegram is more than ${max} telegrams back; connect without it to follow the live stream.`,
  off: (field) =>
    `This server does not resume public streams after a telegram (\`${field}\`); connect without it to follow the live stream.`,
};

/** The newest telegrams this process holds (cache.ts): most resuming clients name one of them. */
export interface HeldTelegrams {
  serialOf(id: string): number | undefined;
  readonly newestSerial: number;
}

export async function resumePoint(
  q: Queryable,
  held: HeldTelegrams,
  field: string,
  id: string,
  maxBehind: number,
  messages: ResumeMessages = resumeMessages,
): Promise<ResumePoint> {
  if (!TELEGRAM_ID.test(id)) return { ok: false, reason: 'malformed', message: messages.malformed(field) };
  // NAMAZU_RESUME_MAX_TELEGRAMS=0 turns resuming off, even from the newest telegram.
  if (maxBehind === 0) return { ok: false, reason: 'off', message: messages.off(field) };
  // A storm of reconnects after a node dies names the last few telegrams: no query for those.
  const serial = held.serialOf(id);
  if (serial !== undefined)
    return behindCheck(messages, field, serial, held.newestSerial - serial, maxBehind);
  const rows = await q.query<{ serial: number; behind: number }>(
    `SELECT serial, (SELECT max(serial) FROM telegrams) - serial AS behind FROM telegrams WHERE id = $1`,
    [id],
  );
  const found = rows[0];
  if (!found) return { ok: false, reason: 'unknown', message: messages.unknown(field) };
  return behindCheck(messages, field, found.serial, found.behind, maxBehind);
}

function behindCheck(
  messages: ResumeMessages,
  field: string,
  serial: number,
  behind: number,
  maxBehind: number,
): ResumePoint {
  if (behind > maxBehind) return { ok: false, reason: 'tooOld', message: messages.tooOld(field, maxBehind) };
  return { ok: true, serial };
}
