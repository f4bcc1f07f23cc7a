import type { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { CredentialCache, growingLru } from '../security/credential-cache.ts';
import { isClientIdShape, toClient, type ClientRow, type OAuthClient } from './clients.ts';

export interface ClientWithSecret {
  client: OAuthClient;
  /** Digest of the client secret; null for public clients. */
  secretDigest: string | null;
}

/** A registered, not revoked client with its secret digest, in one query. */
export async function findClientWithSecret(q: Queryable, clientId: string): Promise<ClientWithSecret | null> {
  if (!isClientIdShape(clientId)) return null;
  const rows = await q.query<ClientRow>(
    'SELECT * FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL',
    [clientId],
  );
  const r = rows[0];
  return r ? { client: toClient(r), secretDigest: r.secret_digest } : null;
}

/** Clients held at most, the least recently used dropped first. */
const MAX_CLIENTS_HELD = 10_000;

/**
 * Clients recently found, for a few seconds, so a burst of token requests from one client costs one
 * lookup. A secret replaced or a client deleted is announced on the bus with the secret's digest
 * (`forgetSecret`): its client is read again at its next request. A public client deleted meanwhile
 * (it has no secret) can still obtain tokens for at most `ttlMs`, and those tokens are refused by
 * resource servers, which check that the client still exists.
 */
export class ClientCache {
  private readonly cache: CredentialCache<ClientWithSecret>;
  /** The client id of each cached secret digest. */
  private readonly bySecret: LRUCache<string, string>;

  constructor(
    private readonly q: Queryable,
    clock: Clock,
    ttlMs: number,
  ) {
    this.cache = new CredentialCache(ttlMs, MAX_CLIENTS_HELD, () => clock.now());
    this.bySecret = growingLru(MAX_CLIENTS_HELD);
  }

  async find(clientId: string): Promise<ClientWithSecret | null> {
    const hit = this.cache.get(clientId);
    if (hit) return hit;
    const found = await findClientWithSecret(this.q, clientId);
    if (found) {
      this.cache.set(clientId, found);
      if (found.secretDigest !== null) this.bySecret.set(found.secretDigest, clientId);
    } else this.cache.delete(clientId);
    return found;
  }

  /** A secret was replaced or its client deleted: its client is read again at its next request. */
  forgetSecret(digest: string): void {
    const clientId = this.bySecret.get(digest);
    if (clientId === undefined) return;
    this.bySecret.delete(digest);
    this.cache.delete(clientId);
  }
}
