import { findApiKeyByDigest, type ApiKeyRecord } from '../accounts/api-keys.ts';
import { busCodecs } from '../bus/codecs.ts';
import type { AppContext } from '../context.ts';
import { readCredential, REPEATED_AUTHORIZATION } from '../security/credential-reader.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import { bearerRefused, credentialsRequired, dpopRefused, insufficientScope } from './auth-error.ts';
import { CredentialCache } from '../security/credential-cache.ts';
import type { DpopNonces } from '../dpop/dpop-nonce.ts';
import { AccessTokenCheck, type DpopRequest } from './token-check.ts';
import type { Principal } from './principal.ts';

/**
 * How long a checked credential is trusted without asking the database (docs/api-contract.md
 * "Credentials": ≤ 60 s).
 */
export const CREDENTIAL_CACHE_MS = 30_000;

/** What the resource-server check reads of a request, whatever transport carried it. */
export interface ResourceRequest extends DpopRequest {
  /** The `Authorization` header value. */
  authorization: string | undefined;
  /** The `key` query parameter, when given exactly once. */
  apiKey: string | undefined;
}

export interface AuthenticateOptions {
  /** Check revocation in the database now instead of trusting the cache (contract and account APIs). */
  fresh?: boolean;
}

export interface Authenticator {
  /** The request's principal; throws a 401 `AuthError` when credentials are missing or invalid. */
  authenticate(request: ResourceRequest, options?: AuthenticateOptions): Promise<Principal>;
  /** Ends the revocation subscription (the process is stopping). */
  close(): Promise<void>;
}

/** Throws a 403 `AuthError` unless the principal holds the scope. */
export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) throw insufficientScope(scope);
}

/**
 * The resource-server check of one process: API keys and access tokens, each cached for
 * CREDENTIAL_CACHE_MS and dropped at once when the bus announces a revocation.
 */
export async function createAuthenticator(
  ctx: Pick<AppContext, 'db' | 'bus' | 'clock' | 'pepper'>,
  nonces: DpopNonces | null,
): Promise<Authenticator> {
  const apiKeys = new CredentialCache<ApiKeyRecord>(CREDENTIAL_CACHE_MS, 100_000, () => ctx.clock.now());
  const tokens = new AccessTokenCheck(ctx, CREDENTIAL_CACHE_MS, nonces);
  const unsubscribe = await busCodecs.revoked.subscribe(ctx.bus, ({ digest }) => {
    apiKeys.delete(digest);
    tokens.forget(digest);
  });

  async function byApiKey(key: string, options: AuthenticateOptions): Promise<Principal> {
    if (!key.startsWith(prefixes.apiKey) || key.length > 200) throw credentialsRequired();
    const digest = digestSecret(ctx.pepper, key);
    let record = options.fresh ? undefined : apiKeys.get(digest);
    if (!record) {
      const found = await findApiKeyByDigest(ctx.db, digest);
      if (!found) {
        apiKeys.delete(digest);
        throw credentialsRequired();
      }
      record = found;
      apiKeys.set(digest, record);
    }
    return {
      accountId: record.accountId,
      clientId: null,
      scopes: new Set(record.scopes),
      via: 'apikey',
      credentialDigest: digest,
    };
  }

  return {
    async authenticate(request, options = {}) {
      if (request.authorization !== undefined) {
        if (request.authorization === REPEATED_AUTHORIZATION)
          throw bearerRefused('more than one Authorization header');
        const { scheme, credential } = readCredential(request.authorization);
        if (credential === null) {
          // A scheme without its token is refused as an unknown token of that scheme.
          if (scheme === 'Bearer') throw bearerRefused('unknown token');
          if (scheme === 'DPoP') throw dpopRefused('invalid_token', 'unknown token');
          throw credentialsRequired();
        }
        if (credential.scheme === 'Bearer') return tokens.bearer(credential.token, options);
        if (credential.scheme === 'DPoP') return tokens.dpopBound(request, credential.token, options);
        // An API key is the Basic user name (docs/api-contract.md "Credentials").
        return byApiKey(credential.user, options);
      }
      if (request.apiKey !== undefined) return byApiKey(request.apiKey, options);
      throw credentialsRequired();
    },
    close: unsubscribe,
  };
}
