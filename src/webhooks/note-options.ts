/**
 * The `misskey` format's own options, checked once for every way a subscription is made (the
 * console's form, `POST /v2/webhook`; docs/webhooks.md "Subscriptions"): the access token (required
 * with Misskey, refused with any other format), the notes' visibility and "local only" (a value other
 * than the default refused with any other format: a form always sends its select, so the default
 * given explicitly is the same as none given).
 */
import { MISSKEY_VISIBILITIES, type MisskeyVisibility } from './formats/misskey.ts';
import type { SubscriptionSpec } from './subscriptions.ts';

/** The longest access token accepted. */
export const MAX_TOKEN_LENGTH = 512;

/**
 * Stands for a Misskey subscription's stored token in the check of a change that keeps it (the
 * token is sealed and never read back): the rules ask for a token, and the stored one is it.
 */
export const KEPT_TOKEN = 'kept';

/** Whether a change keeps the stored token: a Misskey subscription that stays one, given no token. */
export function keepsStoredToken(from: string, to: string, tokenGiven: boolean): boolean {
  return from === 'misskey' && to === 'misskey' && !tokenGiven;
}

/** The options as asked for; `undefined` or `null` is "not given". */
export interface NoteOptionsInput {
  format: string;
  token?: string | null;
  visibility?: string | null;
  localOnly?: boolean | null;
}

/** Why a field was refused: missing (the token), not one offered (a visibility), or not for this format. */
export type NoteOptionProblem = 'missing' | 'unknown' | 'otherFormat';

export type NoteOptions = Pick<SubscriptionSpec, 'token' | 'visibility' | 'localOnly'>;

export type NoteOptionsCheck =
  | { ok: true; value: NoteOptions }
  | { ok: false; problems: Partial<Record<'token' | 'visibility' | 'localOnly', NoteOptionProblem>> };

const isVisibility = (value: string): value is MisskeyVisibility =>
  (MISSKEY_VISIBILITIES as readonly string[]).includes(value);

/** The options a subscription of `format` stores, or every field that breaks a rule. */
export function checkNoteOptions(input: NoteOptionsInput): NoteOptionsCheck {
  const misskey = input.format === 'misskey';
  // A token pasted with a line break or spaces around it is the same token.
  const token = input.token?.trim() ?? '';
  const visibility = input.visibility ?? 'public';
  const localOnly = input.localOnly ?? false;
  const problems: Extract<NoteOptionsCheck, { ok: false }>['problems'] = {};
  if (misskey && (token === '' || token.length > MAX_TOKEN_LENGTH)) problems.token = 'missing';
  if (!misskey && token !== '') problems.token = 'otherFormat';
  if (!isVisibility(visibility)) problems.visibility = 'unknown';
  else if (!misskey && visibility !== 'public') problems.visibility = 'otherFormat';
  if (!misskey && localOnly) problems.localOnly = 'otherFormat';
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: misskey
      ? { token, visibility: visibility as MisskeyVisibility, localOnly }
      : { token: null, visibility: null, localOnly: false },
  };
}
