import type { Db, Queryable } from '../db/types.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';
import { toClient, type ClientRow, type NewClient, type OAuthClient } from './clients.ts';

/**
 * An account's own OAuth clients, as its console manages them: list, read, edit, rotate the secret,
 * delete. Registration itself is `createClient` after `checkRegistration` (client-registration.ts).
 */

export interface ManagedClient extends OAuthClient {
  createdAt: Date;
}

export const MAX_LISTED_CLIENTS = 200;

const toManaged = (r: ClientRow & { created_at: Date }): ManagedClient => ({
  ...toClient(r),
  createdAt: r.created_at,
});

export async function listClientsOf(q: Queryable, accountId: number): Promise<ManagedClient[]> {
  const rows = await q.query<ClientRow & { created_at: Date }>(
    `SELECT * FROM oauth_clients WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id DESC LIMIT $2`,
    [accountId, MAX_LISTED_CLIENTS],
  );
  return rows.map(toManaged);
}

/** The account's live client with this row id, or null. */
export async function findClientOf(
  q: Queryable,
  accountId: number,
  id: number,
): Promise<ManagedClient | null> {
  const rows = await q.query<ClientRow & { created_at: Date }>(
    'SELECT * FROM oauth_clients WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL',
    [id, accountId],
  );
  return rows[0] ? toManaged(rows[0]) : null;
}

/** What an edit may change: everything checked at registration but the type (and so the secret). */
export type ClientEdit = Omit<NewClient, 'accountId' | 'type'>;

/** Applies a checked edit; false when the account has no such live client. */
export async function updateClient(
  q: Queryable,
  accountId: number,
  id: number,
  edit: ClientEdit,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE oauth_clients SET name = $3, redirect_uris = $4, grants = $5, scopes = $6, contact = $7,
       app_url = $8, terms_url = $9, privacy_url = $10, refresh_rotation = $11
     WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id`,
    [
      id,
      accountId,
      edit.name,
      edit.redirectUris,
      edit.grants,
      edit.scopes,
      edit.contact ?? null,
      edit.appUrl ?? null,
      edit.termsUrl ?? null,
      edit.privacyUrl ?? null,
      edit.refreshRotation ?? 'default',
    ],
  );
  return rows.length > 0;
}

/**
 * Gives a confidential client a new secret (returned once) and the digest of the one it replaces,
 * to announce so that the token endpoints' caches drop it at once. Null when the account has no
 * such live confidential client.
 */
export async function rotateClientSecret(
  q: Queryable,
  pepper: Buffer,
  accountId: number,
  id: number,
): Promise<{ secret: string; replacedDigest: string | null } | null> {
  const secret = newSecret(prefixes.clientSecret);
  const rows = await q.query<{ replaced: string | null }>(
    `UPDATE oauth_clients c SET secret_digest = $3
       FROM (SELECT id, secret_digest FROM oauth_clients WHERE id = $1 FOR UPDATE) old
      WHERE c.id = old.id AND c.account_id = $2 AND c.type = 'confidential' AND c.revoked_at IS NULL
      RETURNING old.secret_digest AS replaced`,
    [id, accountId, digestSecret(pepper, secret)],
  );
  return rows[0] ? { secret, replacedDigest: rows[0].replaced } : null;
}

/**
 * Deletes a client: every token issued to it and every authorization given to it go with it, in
 * one transaction. Returns the digests of the deleted tokens and of its secret (to announce on the
 * bus: caches drop them), or null when the
 * account has no such live client. The row stays, marked revoked, so its client id is never reissued.
 * Codes and tokens are deleted before the authorizations, as a code redemption locks them (its code
 * row, then the authorization's key): deleting the authorizations first, and their codes by cascade,
 * deadlocked with a redemption in flight.
 */
export async function deleteClient(db: Db, accountId: number, id: number): Promise<string[] | null> {
  return db.tx(async (q) => {
    const rows = await q.query<{ client_id: string; secret: string | null }>(
      `UPDATE oauth_clients c SET revoked_at = now(), secret_digest = NULL
         FROM (SELECT id, secret_digest FROM oauth_clients WHERE id = $1 FOR UPDATE) old
        WHERE c.id = old.id AND c.account_id = $2 AND c.revoked_at IS NULL
        RETURNING c.client_id, old.secret_digest AS secret`,
      [id, accountId],
    );
    const clientId = rows[0]?.client_id;
    if (clientId === undefined) return null;
    const secret = rows[0]!.secret;
    await q.query('DELETE FROM oauth_codes WHERE client_id = $1', [clientId]);
    const tokens = await q.query<{ digest: string }>(
      'DELETE FROM oauth_tokens WHERE client_id = $1 RETURNING digest',
      [clientId],
    );
    await q.query('DELETE FROM oauth_grants WHERE client_id = $1', [clientId]);
    const digests = tokens.map((t) => t.digest);
    return secret === null ? digests : [...digests, secret];
  });
}
