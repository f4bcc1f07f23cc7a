import { refuseOverCap } from '../accounts/caps.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret, newSecret, prefixes, safeEqual } from '../security/secrets.ts';

export type ClientType = 'confidential' | 'public';
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';
/**
 * Whether a refresh returns a new refresh token and ends the one used (docs/oauth.md "Refresh token
 * rotation"): `default` follows the operator's setting, `on` and `off` decide for this client.
 */
export type RefreshRotation = 'default' | 'on' | 'off';
export const REFRESH_ROTATIONS: readonly RefreshRotation[] = ['default', 'on', 'off'];

export interface OAuthClient {
  id: number;
  clientId: string;
  accountId: number;
  name: string;
  type: ClientType;
  redirectUris: string[];
  grants: GrantType[];
  scopes: string[];
  contact: string | null;
  appUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  refreshRotation: RefreshRotation;
}

/** The optional links and contact of a client, and its settings that have a default. */
type ClientDetails = 'contact' | 'appUrl' | 'termsUrl' | 'privacyUrl' | 'refreshRotation';

/** A client to register: its record without the ids it is given, its details optional. */
export type NewClient = Omit<OAuthClient, 'id' | 'clientId' | ClientDetails> &
  Partial<Pick<OAuthClient, ClientDetails>>;

export interface ClientRow {
  id: number;
  client_id: string;
  secret_digest: string | null;
  account_id: number;
  name: string;
  type: ClientType;
  redirect_uris: string[];
  grants: GrantType[];
  scopes: string[];
  contact: string | null;
  app_url: string | null;
  terms_url: string | null;
  privacy_url: string | null;
  refresh_rotation: RefreshRotation;
}

export function toClient(r: ClientRow): OAuthClient {
  return {
    id: r.id,
    clientId: r.client_id,
    accountId: r.account_id,
    name: r.name,
    type: r.type,
    redirectUris: r.redirect_uris,
    grants: r.grants,
    scopes: r.scopes,
    contact: r.contact,
    appUrl: r.app_url,
    termsUrl: r.terms_url,
    privacyUrl: r.privacy_url,
    refreshRotation: r.refresh_rotation,
  };
}

const CLIENT_ID = /^CId\.[A-Za-z0-9_-]{43}$/;

/** True for strings shaped like an issued client id; anything else is never looked up. */
export function isClientIdShape(value: string): boolean {
  return CLIENT_ID.test(value);
}

/** Registers a client. Returns the secret once (confidential clients only); only its digest is kept. */
export async function createClient(
  q: Queryable,
  pepper: Buffer,
  input: NewClient,
): Promise<{ client: OAuthClient; clientSecret: string | null }> {
  // The account's cap of clients (accounts/caps.ts; atomic when called inside a transaction).
  await refuseOverCap(q, input.accountId, 'oauthClients');
  const clientId = newSecret(prefixes.clientId);
  const clientSecret = input.type === 'confidential' ? newSecret(prefixes.clientSecret) : null;
  const rows = await q.query<ClientRow>(
    `INSERT INTO oauth_clients (client_id, secret_digest, account_id, name, type, redirect_uris, grants,
       scopes, contact, app_url, terms_url, privacy_url, refresh_rotation)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13) RETURNING *`,
    [
      clientId,
      clientSecret === null ? null : digestSecret(pepper, clientSecret),
      input.accountId,
      input.name,
      input.type,
      input.redirectUris,
      input.grants,
      input.scopes,
      input.contact ?? null,
      input.appUrl ?? null,
      input.termsUrl ?? null,
      input.privacyUrl ?? null,
      input.refreshRotation ?? 'default',
    ],
  );
  return { client: toClient(rows[0]!), clientSecret };
}

/** The id of the account's oldest live client of this name and type newer than `afterId`, or null. */
export async function clientMadeAfter(
  q: Queryable,
  accountId: number,
  afterId: number,
  made: Pick<OAuthClient, 'name' | 'type'>,
): Promise<number | null> {
  const rows = await q.query<{ id: number }>(
    `SELECT id FROM oauth_clients
      WHERE account_id = $1 AND id > $2 AND name = $3 AND type = $4 AND revoked_at IS NULL
      ORDER BY id LIMIT 1`,
    [accountId, afterId, made.name, made.type],
  );
  return rows[0]?.id ?? null;
}

/**
 * What a page names the client's current secret by (null for none): a digest of its digest, so a
 * form can say which secret it replaces without showing anything a secret could be checked against.
 */
function secretMark(pepper: Buffer, secretDigest: string | null): string | null {
  return secretDigest === null ? null : digestSecret(pepper, `secret mark ${secretDigest}`).slice(0, 32);
}

/** The mark of the account's live client's current secret; with `lock`, its row locked to the end. */
export async function currentSecretMark(
  q: Queryable,
  pepper: Buffer,
  accountId: number,
  id: number,
  lock = false,
): Promise<string | null> {
  const rows = await q.query<{ secret_digest: string | null }>(
    `SELECT secret_digest FROM oauth_clients WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
     ${lock ? 'FOR UPDATE' : ''}`,
    [id, accountId],
  );
  return secretMark(pepper, rows[0]?.secret_digest ?? null);
}

/** A registered, not revoked client, or null. */
export async function findClient(q: Queryable, clientId: string): Promise<OAuthClient | null> {
  if (!isClientIdShape(clientId)) return null;
  const rows = await q.query<ClientRow>(
    'SELECT * FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL',
    [clientId],
  );
  return rows[0] ? toClient(rows[0]) : null;
}

/** True when `secret` is the client's secret (constant-time on the digests). */
export async function verifyClientSecret(
  q: Queryable,
  pepper: Buffer,
  clientId: string,
  secret: string,
): Promise<boolean> {
  if (!isClientIdShape(clientId)) return false;
  const rows = await q.query<{ secret_digest: string | null }>(
    'SELECT secret_digest FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL',
    [clientId],
  );
  const stored = rows[0]?.secret_digest;
  return typeof stored === 'string' && safeEqual(stored, digestSecret(pepper, secret));
}
