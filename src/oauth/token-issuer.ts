import type { Bus } from '../bus/types.ts';
import type { Clock } from '../clock.ts';
import type { RefreshRotationDefault } from '../config.ts';
import type { Db } from '../db/types.ts';
import type { ClientCache } from '../issuer/client-cache.ts';
import type { AccountTokenWriter } from '../issuer/token-batch.ts';

/**
 * Longest life of an authorization's refresh token, however often it is used: after three years
 * the user is asked to consent again. Bounds the damage of a refresh token that leaked unnoticed.
 */
export const REFRESH_TOKEN_MAX_AGE_MS = 3 * 365 * 86_400_000;

/** What the token, revocation and introspection endpoints act with (built by token-routes.ts). */
export interface Issuer {
  db: Db;
  /** Client records, cached for a few seconds (client-cache.ts). */
  clients: ClientCache;
  /** Writes client_credentials tokens, concurrent ones together (auth/token-batch.ts). */
  accountTokens: AccountTokenWriter;
  bus: Bus;
  clock: Clock;
  pepper: Buffer;
  refreshMaxAgeMs: number;
  /** Whose refresh tokens rotate when their client follows the default (NAMAZU_REFRESH_ROTATION). */
  refreshRotation: RefreshRotationDefault;
}
