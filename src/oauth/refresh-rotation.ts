import type { OAuthClient } from '../issuer/clients.ts';
import { findRotatedToken } from '../issuer/refresh-rotation.ts';
import { announceRevoked, endGrant } from '../issuer/tokens.ts';
import type { Bus } from '../bus/types.ts';
import type { Db } from '../db/types.ts';
import { invalidGrant, type OAuthError } from './token-errors.ts';

/**
 * The refusal of a refresh token that is not live. When it is one this client's rotation ended, it
 * was used twice, by the client and by someone holding a copy (RFC 9700 §4.14.2), or by two racing
 * refreshes: its whole authorization is ended, as a revocation would, so every token of it stops and
 * the WebSocket sessions started with them are cut off.
 */
export async function refusedRefreshToken(
  iss: { db: Db; bus: Bus },
  client: OAuthClient,
  digest: string,
  now: number,
): Promise<OAuthError> {
  const ended = await findRotatedToken(iss.db, digest, now);
  if (!ended || ended.clientId !== client.clientId) return invalidGrant('refresh token not found');
  await announceRevoked(iss.bus, await endGrant(iss.db, ended.grantId));
  return invalidGrant('refresh token already used: the authorization was revoked');
}
