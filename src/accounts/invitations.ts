import type { Db, Queryable } from '../db/types.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';
import { AccountError, createAccount, normalizeEmail, type Account } from './accounts.ts';

/**
 * Invitations to sign up (docs/console.md "Sign-up"): a token an administrator hands to a person.
 * Only its digest is stored; it is used at most once and expires.
 */

export const INVITATION_TTL_MS = 7 * 86_400_000;
export const MAX_INVITATION_TTL_MS = 90 * 86_400_000;
const TOKEN = /^INv\.[A-Za-z0-9_-]{43}$/;

export async function createInvitation(
  q: Queryable,
  pepper: Buffer,
  input: { now: number; ttlMs?: number; email?: string | null; createdBy?: number | null },
): Promise<{ token: string; expiresAt: Date }> {
  const ttl = input.ttlMs ?? INVITATION_TTL_MS;
  if (!Number.isInteger(ttl) || ttl <= 0 || ttl > MAX_INVITATION_TTL_MS)
    throw new AccountError(`an invitation lasts from 1 ms to ${MAX_INVITATION_TTL_MS / 86_400_000} days`);
  const token = newSecret(prefixes.invitation);
  const expiresAt = new Date(input.now + ttl);
  await q.query(
    'INSERT INTO invitations (digest, email, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [
      digestSecret(pepper, token),
      input.email ? normalizeEmail(input.email) : null,
      input.createdBy ?? null,
      new Date(input.now),
      expiresAt,
    ],
  );
  return { token, expiresAt };
}

/** The id of the oldest unused invitation `createdBy` made for `email` after `afterId`, or null. */
export async function invitationMadeAfter(
  q: Queryable,
  createdBy: number,
  afterId: number,
  email: string | null,
): Promise<number | null> {
  const rows = await q.query<{ id: number }>(
    `SELECT id FROM invitations
      WHERE created_by = $1 AND id > $2 AND email IS NOT DISTINCT FROM $3 AND used_at IS NULL
      ORDER BY id LIMIT 1`,
    [createdBy, afterId, email ? normalizeEmail(email) : null],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** Why an invitation token cannot be used now ('unknown' covers used and expired), or null. */
export async function invitationProblem(
  q: Queryable,
  pepper: Buffer,
  token: string,
  now: number,
): Promise<'unknown' | null> {
  if (!TOKEN.test(token)) return 'unknown';
  const rows = await q.query(
    'SELECT 1 FROM invitations WHERE digest = $1 AND used_at IS NULL AND expires_at > $2',
    [digestSecret(pepper, token), new Date(now)],
  );
  return rows.length > 0 ? null : 'unknown';
}

export class InvitationError extends AccountError {
  constructor(
    readonly reason: 'invalid' | 'other-email',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Creates the account an invitation was for and uses the invitation up, in one transaction: two
 * sign-ups with one token never both succeed. An invitation made out to an address admits only it.
 */
export async function acceptInvitation(
  db: Db,
  pepper: Buffer,
  token: string,
  now: number,
  input: { email: string; password: string; name?: string | null },
): Promise<Account> {
  if (!TOKEN.test(token)) throw new InvitationError('invalid', 'this invitation is not valid');
  return db.tx(async (q) => {
    const rows = await q.query<{ id: number; email: string | null }>(
      `SELECT id, email FROM invitations
        WHERE digest = $1 AND used_at IS NULL AND expires_at > $2 FOR UPDATE`,
      [digestSecret(pepper, token), new Date(now)],
    );
    const invitation = rows[0];
    if (!invitation) throw new InvitationError('invalid', 'this invitation is not valid, used or expired');
    if (invitation.email !== null && invitation.email !== normalizeEmail(input.email))
      throw new InvitationError('other-email', 'this invitation is for another e-mail address');
    const account = await createAccount(q, input);
    await q.query('UPDATE invitations SET used_at = $2, account_id = $3 WHERE id = $1', [
      invitation.id,
      new Date(now),
      account.id,
    ]);
    return account;
  });
}
