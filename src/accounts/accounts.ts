import type { Db, Queryable } from '../db/types.ts';
import { hashPassword, verifyPassword } from '../security/secrets.ts';
import { CodedError } from '../errors.ts';

export interface Account {
  id: number;
  email: string;
  name: string | null;
  isAdmin: boolean;
}

export class AccountError extends CodedError {
  constructor(message: string) {
    super('ACCOUNT_REFUSED', { message });
  }
}

// No white space, control characters or second @: nothing a database text column or a mail header chokes on.
// eslint-disable-next-line no-control-regex -- control characters are exactly what it excludes
const EMAIL = /^[^\s@\u0000-\u001f\u007f]{1,64}@[^\s@\u0000-\u001f\u007f]{1,255}$/;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** True when `raw`, once normalized, is an address an account can have. */
export function isEmailAddress(raw: string): boolean {
  return EMAIL.test(normalizeEmail(raw));
}

// Unicode white space (NBSP, U+3000, BOM included in \s) and zero-width characters around an address.
const EDGE_SPACE = /^[\s\u200b-\u200d\u2060]+|[\s\u200b-\u200d\u2060]+$/gu;

/**
 * The one form of an e-mail address used to store, find, sign in and count attempts against an
 * account: NFKC (full-width letters and spaces become ASCII), trimmed of every Unicode white space
 * and zero-width character, lower-cased. Variants of one address are one account (docs/security.md).
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFKC').replace(EDGE_SPACE, '').toLowerCase();
}

interface AccountRow {
  id: number;
  email: string;
  name: string | null;
  is_admin: boolean;
  password_hash: string;
  disabled_at: Date | null;
  connection_limit: number | null;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  name: r.name,
  isAdmin: r.is_admin,
});

export async function createAccount(
  q: Queryable,
  input: { email: string; password: string; name?: string | null; isAdmin?: boolean },
): Promise<Account> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw new AccountError(`not an email address: ${input.email}`);
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH)
    throw new AccountError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  const existing = await q.query('SELECT 1 FROM accounts WHERE email = $1', [email]);
  if (existing.length > 0) throw new AccountError(`an account with email ${email} exists already`);
  const rows = await q.query<AccountRow>(
    'INSERT INTO accounts (email, name, password_hash, is_admin) VALUES ($1, $2, $3, $4) RETURNING *',
    [email, input.name ?? null, await hashPassword(input.password), input.isAdmin ?? false],
  );
  return toAccount(rows[0]!);
}

export async function findAccountByEmail(q: Queryable, email: string): Promise<Account | null> {
  if (!EMAIL.test(normalizeEmail(email))) return null;
  const rows = await q.query<AccountRow>('SELECT * FROM accounts WHERE email = $1', [normalizeEmail(email)]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function getAccount(q: Queryable, id: number): Promise<Account | null> {
  const rows = await q.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ? toAccount(rows[0]) : null;
}

/** The account when email and password match and it is not disabled; null otherwise (same work either way). */
export async function checkPassword(q: Queryable, email: string, password: string): Promise<Account | null> {
  if (!EMAIL.test(normalizeEmail(email))) {
    await verifyPassword(password, await dummyHash());
    return null;
  }
  const rows = await q.query<AccountRow>('SELECT * FROM accounts WHERE email = $1', [normalizeEmail(email)]);
  const row = rows[0];
  // Hash against a fixed dummy when the account does not exist, so timing does not reveal it.
  const ok = await verifyPassword(password, row?.password_hash ?? (await dummyHash()));
  return row && ok && row.disabled_at === null ? toAccount(row) : null;
}

/**
 * Replaces the account's password when `current` is its password now. Returns false (and changes
 * nothing) otherwise. The caller ends the account's other sign-in sessions.
 */
export async function changePassword(
  q: Queryable,
  accountId: number,
  current: string,
  next: string,
): Promise<boolean> {
  if (next.length < MIN_PASSWORD_LENGTH || next.length > MAX_PASSWORD_LENGTH)
    throw new AccountError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  const rows = await q.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [
    accountId,
  ]);
  const row = rows[0];
  if (!row || !(await verifyPassword(current, row.password_hash))) return false;
  await q.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [
    accountId,
    await hashPassword(next),
  ]);
  return true;
}

/**
 * Sets the account's password whatever it was (an operator's reset, `namazu account password`) and
 * ends its console sessions in the same transaction. Returns the account, or null when there is none.
 */
export async function resetPassword(db: Db, email: string, next: string): Promise<Account | null> {
  if (next.length < MIN_PASSWORD_LENGTH || next.length > MAX_PASSWORD_LENGTH)
    throw new AccountError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  const hash = await hashPassword(next);
  return db.tx(async (q) => {
    const [row] = await q.query<AccountRow>(
      'UPDATE accounts SET password_hash = $2 WHERE email = $1 RETURNING *',
      [normalizeEmail(email), hash],
    );
    if (!row) return null;
    await q.query('DELETE FROM web_sessions WHERE account_id = $1', [row.id]);
    return toAccount(row);
  });
}

/**
 * How the first administrator is created: the server prints it at start with its `target` (demo.ts
 * `commandTarget`: the `--data-dir` of an embedded database elsewhere than ./data); the sign-up page
 * shows it without, as a public page does not name the server's directories.
 */
export const firstAdministratorCommand = (target = '') =>
  `npx namazu account create --email you@example.com --password "a long password" --admin${target}`;

/** Whether any active administrator exists (none: the operator is told how to create the first). */
export async function hasAdministrator(q: Queryable): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM accounts WHERE is_admin AND disabled_at IS NULL LIMIT 1');
  return rows.length > 0;
}

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword('namazu-dummy-password'));

export interface AccountListItem extends Account {
  createdAt: Date;
  disabledAt: Date | null;
  /** The operator's connection limit; null when the plans decide (connection-limit.ts). */
  connectionLimit: number | null;
}

/** Accounts by id, oldest first, `limit` from after `afterId` (the administration list). */
export async function listAccounts(q: Queryable, afterId: number, limit: number): Promise<AccountListItem[]> {
  const rows = await q.query<AccountRow & { created_at: Date }>(
    'SELECT * FROM accounts WHERE id > $1 ORDER BY id LIMIT $2',
    [afterId, limit],
  );
  return rows.map((r) => ({
    ...toAccount(r),
    createdAt: r.created_at,
    disabledAt: r.disabled_at,
    connectionLimit: r.connection_limit,
  }));
}

/** Whether the account exists and is not disabled. */
export async function isAccountActive(q: Queryable, id: number): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM accounts WHERE id = $1 AND disabled_at IS NULL', [id]);
  return rows.length > 0;
}

/**
 * Disables an account: it can no longer sign in, and in the same transaction its sign-in sessions
 * and OAuth tokens are deleted and its API keys revoked. Returns the digests of the deleted tokens
 * and revoked keys, for the caller to announce (their caches forget them), or null when there is
 * no such account or it was disabled already.
 */
export async function disableAccount(db: Db, id: number): Promise<{ revokedDigests: string[] } | null> {
  return db.tx(async (q) => {
    const [row] = await q.query<{ id: number }>(
      'UPDATE accounts SET disabled_at = now() WHERE id = $1 AND disabled_at IS NULL RETURNING id',
      [id],
    );
    if (!row) return null;
    await q.query('DELETE FROM web_sessions WHERE account_id = $1', [id]);
    const tokens = await q.query<{ digest: string }>(
      'DELETE FROM oauth_tokens WHERE account_id = $1 RETURNING digest',
      [id],
    );
    const keys = await q.query<{ digest: string }>(
      'UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING digest',
      [id],
    );
    return { revokedDigests: [...tokens, ...keys].map((r) => r.digest) };
  });
}
