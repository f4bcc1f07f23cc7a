import type { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.ts';
import { digestSecret, prefixes } from '../security/secrets.ts';
import { bearerRefused, dpopRefused } from './auth-error.ts';
import { CredentialCache, growingLru } from '../security/credential-cache.ts';
import { checkDpopProof, singleDpopProof, type DpopPolicy } from '../dpop/dpop-check.ts';
import { DpopError } from '../dpop/dpop.ts';
import type { DpopNonces } from '../dpop/dpop-nonce.ts';
import type { Principal } from './principal.ts';
import { findLiveToken, type TokenRecord } from '../issuer/tokens.ts';

/** What a DPoP-bound token check reads of the request (RFC 9449 §7). */
export interface DpopRequest {
  /** HTTP method, upper case. */
  method: string;
  /** Every `DPoP` header value, in order: more than one makes the proof invalid (RFC 9449 §4.3). */
  dpop: readonly string[];
  /** The URLs a proof may name for this request (`htu`): its public origins with the path, no query. */
  urls(): readonly string[];
}

interface CachedToken {
  record: TokenRecord;
  scopes: ReadonlySet<string>;
}

/** Checked tokens (and their digests) held at most, the least recently used dropped first. */
const MAX_CHECKED_TOKENS = 100_000;

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
    private readonly ctx: Pick<AppContext, 'db' | 'clock' | 'pepper'>,
    cacheMs: number,
    /** Server nonces; null when configured off. */
    nonces: DpopNonces | null,
  ) {
    this.cache = new CredentialCache(cacheMs, MAX_CHECKED_TOKENS, () => ctx.clock.now());
    this.digests = growingLru(MAX_CHECKED_TOKENS);
    this.dpop = { db: ctx.db, clock: ctx.clock, nonces };
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
  async dpopBound(request: DpopRequest, token: string, options: TokenCheckOptions = {}): Promise<Principal> {
    if (!token.startsWith(prefixes.accessToken) || token.length > 200)
      throw dpopRefused('invalid_token', 'unknown token');
    let proof: string | undefined;
    try {
      proof = singleDpopProof(request.dpop);
    } catch (e) {
      throw dpopRefused('invalid_dpop_proof', (e as Error).message);
    }
    if (proof === undefined) throw dpopRefused('invalid_dpop_proof', 'a DPoP proof is required');
    const digest = this.digestOf(token);
    const entry = await this.lookup(digest, options.fresh ?? false);
    if (!entry) throw dpopRefused('invalid_token', 'the token is unknown, expired or revoked');
    this.remember(token, digest);
    if (entry.record.jkt === null) throw dpopRefused('invalid_token', 'the token is not bound to a DPoP key');
    let jkt: string;
    try {
      ({ jkt } = await checkDpopProof(this.dpop, proof, {
        htm: request.method,
        htu: request.urls(),
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
