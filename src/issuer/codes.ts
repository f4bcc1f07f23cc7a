import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { digestSecret, newSecret, prefixes } from '../security/secrets.ts';

/** Authorization code lifetime (docs/oauth.md "Authorization code grant": 300 s, single use). */
export const CODE_TTL_MS = 300_000;

export interface CodeRequest {
  clientId: string;
  accountId: number;
  /** redirect_uri as sent in the authorization request; null when it was omitted. */
  redirectUri: string | null;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  dpopJkt: string | null;
}

/**
 * Records an approved authorization: a new grant (the token family) and its code. Returns the code;
 * only its digest is stored. Redemption lives with the token endpoint's domain code.
 */
export async function issueCode(
  q: Queryable,
  pepper: Buffer,
  clock: Clock,
  req: CodeRequest,
): Promise<{ code: string; grantId: number }> {
  const code = newSecret(prefixes.code);
  const grants = await q.query<{ id: number }>(
    'INSERT INTO oauth_grants (account_id, client_id, scopes) VALUES ($1, $2, $3) RETURNING id',
    [req.accountId, req.clientId, req.scopes],
  );
  const grantId = grants[0]!.id;
  await q.query(
    `INSERT INTO oauth_codes (digest, grant_id, client_id, account_id, redirect_uri, scopes,
       code_challenge, code_challenge_method, dpop_jkt, expires_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
    [
      digestSecret(pepper, code),
      grantId,
      req.clientId,
      req.accountId,
      req.redirectUri,
      req.scopes,
      req.codeChallenge,
      req.codeChallengeMethod,
      req.dpopJkt,
      new Date(clock.now() + CODE_TTL_MS),
    ],
  );
  return { code, grantId };
}
