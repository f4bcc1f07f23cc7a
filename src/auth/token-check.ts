import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.ts';
import { HttpError, messages } from '../http/errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import { CredentialCache } from './credential-cache.ts';
import { checkDpopProof, readDpopHeader, type DpopPolicy } from './dpop-check.ts';
import { DpopError, dpopAlgorithms } from './dpop.ts';
import { DpopNonces, dpopNonceKey } from './dpop-nonce.ts';
import type { Principal } from './principal.ts';
import { findLiveToken, type TokenRecord } from './tokens.ts';

const DPOP_ALGS = `algs="${dpopAlgorithms.join(' ')}"`;

/** 401 with the RFC 6750 §3 Bearer challenge naming what was wrong with the token. */
function bearerRefused(description: string): HttpError {
  return new HttpError(401, messages.authRequired, {
    'www-authenticate': `Bearer realm="namazu", error="invalid_token", error_description="${description}"`,
  });
}

/** 401 with the RFC 9449 §7.1 DPoP challenge; a nonce challenge also carries the nonce. */
function dpopRefused(error: string, description: string, nonce?: string): HttpError {
  return new HttpError(401, messages.authRequired, {
    'www-authenticate': `DPoP realm="namazu", ${DPOP_ALGS}, error="${error}", error_description="${description}"`,
    ...(nonce ? { 'dpop-nonce': nonce } : {}),
  });
}

interface CachedToken {
  record: TokenRecord;
  scopes: ReadonlySet<string>;
}

export interface TokenCheckOptions {
  /** Ask the database now rather than trust the cache (contract and account APIs). */
  fresh?: boolean;
}

/**
 * The resource-server side of OAuth: turns `Authorization: Bearer ATn.…` or `Authorization: DPoP
 * ATn.…` + `DPoP:` proof into a Principal. Checked tokens are cached for at most `cacheMs` (and never
 * past their expiry) so the hot path does not touch the database; revocations announced on the bus
 * drop entries at once (`forget`).
 */
export class AccessTokenCheck {
  private readonly cache: CredentialCache<CachedToken>;
  private readonly dpop: DpopPolicy;
  /**
   * Digests of token values that were found valid. The HMAC is most of a warm check's cost, and a
   * digest is a pure function of the value, so remembering it never serves stale answers: whether
   * the token still counts is decided by `cache` and the database, keyed by digest.
   */
  private readonly digests: LRUCache<string, string>;

  constructor(
    private readonly ctx: Pick<AppContext, 'db' | 'clock' | 'pepper' | 'config'>,
    cacheMs: number,
    maxEntries = 100_000,
  ) {
    this.cache = new CredentialCache(cacheMs, maxEntries, () => ctx.clock.now());
    this.digests = new LRUCache({ max: maxEntries });
    this.dpop = {
      db: ctx.db,
      clock: ctx.clock,
      nonces: ctx.config.dpopNonce ? new DpopNonces(dpopNonceKey(ctx.pepper)) : null,
    };
  }

  forget(digest: string): void {
    this.cache.delete(digest);
  }

  private digestOf(token: string): string {
    return this.digests.get(token) ?? digestSecret(this.ctx.pepper, token);
  }

  private remember(token: string, digest: string): void {
    if (!this.digests.has(token)) this.digests.set(token, digest);
  }

  private async lookup(digest: string, fresh: boolean): Promise<CachedToken | null> {
    const now = this.ctx.clock.now();
    const hit = fresh ? undefined : this.cache.get(digest);
    if (hit) return hit;
    const record = await findLiveToken(this.ctx.db, digest, now);
    if (!record || record.kind !== 'access') {
      this.cache.delete(digest);
      return null;
    }
    const entry = { record, scopes: new Set(record.scopes) };
    this.cache.set(digest, entry, record.expiresAt.getTime());
    return entry;
  }

  private principal(entry: CachedToken, via: 'bearer' | 'dpop', digest: string): Principal {
    return {
      accountId: entry.record.accountId,
      clientId: entry.record.clientId,
      scopes: entry.scopes,
      via,
      credentialDigest: digest,
    };
  }

  /** `Authorization: Bearer <token>` (RFC 6750). A DPoP-bound token is refused here. */
  async bearer(token: string, options: TokenCheckOptions = {}): Promise<Principal> {
    if (!token.startsWith(prefixes.accessToken) || token.length > 200) throw bearerRefused('unknown token');
    const digest = this.digestOf(token);
    const entry = await this.lookup(digest, options.fresh ?? false);
    if (!entry) throw bearerRefused('the token is unknown, expired or revoked');
    this.remember(token, digest);
    if (entry.record.jkt !== null) throw dpopRefused('invalid_token', 'the token is bound to a DPoP key');
    return this.principal(entry, 'bearer', digest);
  }

  /**
   * `Authorization: DPoP <token>` with a `DPoP` proof (RFC 9449 §7): the proof must name this
   * request (`htm`, `htu`), carry `ath` of the token, a current server nonce when nonces are on, and
   * be signed by the key the token is bound to.
   */
  async dpopBound(
    request: FastifyRequest,
    token: string,
    options: TokenCheckOptions = {},
  ): Promise<Principal> {
    if (!token.startsWith(prefixes.accessToken) || token.length > 200)
      throw dpopRefused('invalid_token', 'unknown token');
    let proof: string | undefined;
    try {
      proof = readDpopHeader(request.raw.rawHeaders);
    } catch (e) {
      throw dpopRefused('invalid_dpop_proof', (e as Error).message);
    }
    if (proof === undefined) throw dpopRefused('invalid_dpop_proof', 'a DPoP proof is required');
    const digest = this.digestOf(token);
    const entry = await this.lookup(digest, options.fresh ?? false);
    if (!entry) throw dpopRefused('invalid_token', 'the token is unknown, expired or revoked');
    this.remember(token, digest);
    if (entry.record.jkt === null) throw dpopRefused('invalid_token', 'the token is not bound to a DPoP key');
    const urls = publicUrls(this.ctx.config, request);
    const path = request.url.split('?')[0]!;
    let jkt: string;
    try {
      ({ jkt } = await checkDpopProof(this.dpop, proof, {
        htm: request.method,
        htu: [urls.base + path, urls.data + path],
        accessToken: token,
      }));
    } catch (e) {
      if (!(e instanceof DpopError)) throw e;
      const nonce = e.code === 'use_dpop_nonce' ? this.dpop.nonces?.current(this.ctx.clock.now()) : undefined;
      throw dpopRefused(e.code, e.message, nonce);
    }
    if (jkt !== entry.record.jkt)
      throw dpopRefused('invalid_token', 'the proof key is not the key the token is bound to');
    return this.principal(entry, 'dpop', digest);
  }
}
