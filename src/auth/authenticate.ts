import type { FastifyRequest } from 'fastify';
import { findApiKeyByDigest, type ApiKeyRecord } from '../accounts/api-keys.ts';
import { channels } from '../bus/types.ts';
import type { AppContext } from '../context.ts';
import { HttpError, messages } from '../http/errors.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import { CredentialCache } from './credential-cache.ts';
import { AccessTokenCheck } from './token-check.ts';
import type { Principal } from './principal.ts';

/**
 * How long a checked credential is trusted without asking the database (docs/api-contract.md
 * "Credentials": ≤ 60 s).
 */
export const CREDENTIAL_CACHE_MS = 30_000;

export interface AuthenticateOptions {
  /** Check revocation in the database now instead of trusting the cache (contract and account APIs). */
  fresh?: boolean;
}

export interface Authenticator {
  /** The request's principal; throws 401 when credentials are missing or invalid. */
  authenticate(request: FastifyRequest, options?: AuthenticateOptions): Promise<Principal>;
}

export function authRequired(): HttpError {
  return new HttpError(401, messages.authRequired, { 'www-authenticate': 'Bearer realm="namazu"' });
}

/** Throws 403 unless the principal holds the scope. */
export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) throw new HttpError(403, messages.insufficientScope(scope));
}

/** The `key` query parameter, when given exactly once. */
function queryKey(request: FastifyRequest): string | undefined {
  const q = request.query as Record<string, unknown> | undefined;
  const v = q?.key;
  return typeof v === 'string' ? v : undefined;
}

/** The API key from `Authorization: Basic base64("<key>:")`, or undefined when malformed. */
function basicKey(credentials: string): string | undefined {
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  return user.startsWith(prefixes.apiKey) ? user : undefined;
}

export async function createAuthenticator(ctx: AppContext): Promise<Authenticator> {
  const apiKeys = new CredentialCache<ApiKeyRecord>(CREDENTIAL_CACHE_MS, 100_000, () => ctx.clock.now());
  const tokens = new AccessTokenCheck(ctx, CREDENTIAL_CACHE_MS);
  const unsubscribe = await ctx.bus.subscribe(channels.revoked, (payload) => {
    try {
      const { digest } = JSON.parse(payload) as { digest?: unknown };
      if (typeof digest === 'string') {
        apiKeys.delete(digest);
        tokens.forget(digest);
      }
    } catch {
      // a malformed announcement is ignored
    }
  });
  ctx.onShutdown.push(unsubscribe);

  async function byApiKey(key: string, options: AuthenticateOptions): Promise<Principal> {
    if (!key.startsWith(prefixes.apiKey) || key.length > 200) throw authRequired();
    const digest = digestSecret(ctx.pepper, key);
    let record = options.fresh ? undefined : apiKeys.get(digest);
    if (!record) {
      const found = await findApiKeyByDigest(ctx.db, digest);
      if (!found) {
        apiKeys.delete(digest);
        throw authRequired();
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
      const header = request.headers.authorization;
      if (header !== undefined) {
        const space = header.indexOf(' ');
        const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
        const credentials = space === -1 ? '' : header.slice(space + 1).trim();
        if (scheme === 'bearer') return tokens.bearer(credentials, options);
        if (scheme === 'dpop') return tokens.dpopBound(request, credentials, options);
        if (scheme === 'basic') {
          const key = basicKey(credentials);
          if (key) return byApiKey(key, options);
        }
        throw authRequired();
      }
      const key = queryKey(request);
      if (key !== undefined) return byApiKey(key, options);
      throw authRequired();
    },
  };
}
