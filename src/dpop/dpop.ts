import { createHash } from 'node:crypto';
import { CodedError } from '../errors.ts';
import { base64url, calculateJwkThumbprint, compactVerify, importJWK, type CryptoKey, type JWK } from 'jose';

/** Proof algorithms accepted and advertised (docs/oauth.md "DPoP"): asymmetric only, never `none` or HS*. */
export const dpopAlgorithms = ['ES256', 'EdDSA', 'PS256', 'RS256'] as const;
type DpopAlg = (typeof dpopAlgorithms)[number];

/** Bounds on what a proof may carry, so a hostile header costs little. */
export const DPOP_MAX_PROOF_CHARS = 8192;
const MAX_JTI_CHARS = 256;
/** Accepted distance between a proof's `iat` and the server clock (docs/oauth.md "DPoP": ±60 s). */
export const DPOP_IAT_WINDOW_S = 60;

export type DpopErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce';

/**
 * A rejected proof, as its catalogue entry (src/errors.ts): `message` is a short fixed text safe
 * for `error_description`.
 */
export class DpopError extends CodedError {
  declare readonly code: DpopErrorCode;

  constructor(code: DpopErrorCode, message: string) {
    super(code, { detail: message });
  }
}

const invalid = (why: string) => new DpopError('invalid_dpop_proof', why);

export interface ProofExpectations {
  /** HTTP method of the request, upper case. */
  htm: string;
  /**
   * The request's URL as clients address it (public origin + path), or each URL it may be known by;
   * query and fragment are ignored.
   */
  htu: string | readonly string[];
  /** Server time in milliseconds. */
  now: number;
  /** At a resource server: the access token the proof must be bound to through `ath`. */
  accessToken?: string;
}

export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint of the proof key (base64url). */
  jkt: string;
  jti: string;
  /** Seconds since the epoch. */
  iat: number;
  nonce: string | undefined;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** `scheme://host[:port]/path` with URL normalisation (lower-case host, default port dropped). */
export function normaliseHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** base64url(SHA-256(token)): the `ath` claim (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

function parseJson(segment: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(segment)));
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The public key members for `alg`, or an error naming what is wrong with the jwk. */
function publicJwk(alg: DpopAlg, jwk: Record<string, unknown>): JWK {
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw invalid('jwk must be a public key');
  const str = (name: string) => {
    const v = jwk[name];
    if (typeof v !== 'string' || v.length === 0 || v.length > 1100) throw invalid('jwk is malformed');
    return v;
  };
  switch (alg) {
    case 'ES256':
      if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw invalid('jwk does not match alg');
      return { kty: 'EC', crv: 'P-256', x: str('x'), y: str('y') };
    case 'EdDSA':
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw invalid('jwk does not match alg');
      return { kty: 'OKP', crv: 'Ed25519', x: str('x') };
    case 'PS256':
    case 'RS256':
      if (jwk.kty !== 'RSA') throw invalid('jwk does not match alg');
      return { kty: 'RSA', n: str('n'), e: str('e') };
  }
}

/**
 * Imported keys and their thumbprints by alg + jwk: a client signs every proof with the same key, so
 * importing and hashing it once pays.
 */
const keyCache = new Map<string, { key: CryptoKey; jkt: string }>();
const KEY_CACHE_MAX = 2048;

async function importKey(alg: DpopAlg, jwk: JWK): Promise<{ key: CryptoKey; jkt: string }> {
  const id = alg + JSON.stringify(jwk);
  const hit = keyCache.get(id);
  if (hit) return hit;
  let entry: { key: CryptoKey; jkt: string };
  try {
    entry = {
      key: (await importJWK(jwk, alg)) as CryptoKey,
      jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    };
  } catch {
    throw invalid('jwk is not a usable key');
  }
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(id, entry);
  return entry;
}

/**
 * Checks a DPoP proof per RFC 9449 §4.3: syntax, `typ`, algorithm, public `jwk`, signature, `htm`,
 * `htu`, `iat` window and (at a resource server) `ath`. Nonce and `jti` replay are checked by the
 * caller with the returned claims, once everything here has passed.
 */
export async function verifyDpopProof(proof: string, expected: ProofExpectations): Promise<VerifiedProof> {
  if (proof.length > DPOP_MAX_PROOF_CHARS) throw invalid('proof too large');
  if (!COMPACT_JWS.test(proof)) throw invalid('proof is not a single compact JWT');
  const [headerPart, payloadPart] = proof.split('.') as [string, string, string];
  const header = parseJson(headerPart);
  if (!isObject(header)) throw invalid('proof header is not a JSON object');
  if (header.typ !== 'dpop+jwt') throw invalid('typ must be dpop+jwt');
  const alg = header.alg;
  if (typeof alg !== 'string' || !(dpopAlgorithms as readonly string[]).includes(alg)) {
    throw invalid('alg not supported');
  }
  if (!isObject(header.jwk)) throw invalid('jwk header missing');
  const jwk = publicJwk(alg as DpopAlg, header.jwk);
  const { key, jkt } = await importKey(alg as DpopAlg, jwk);
  try {
    await compactVerify(proof, key, { algorithms: [alg] });
  } catch {
    throw invalid('signature invalid');
  }

  const claims = parseJson(payloadPart);
  if (!isObject(claims)) throw invalid('proof payload is not a JSON object');
  const { jti, htm, htu, iat, nonce, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0) throw invalid('jti missing');
  if (jti.length > MAX_JTI_CHARS) throw invalid('jti too long');
  if (typeof htm !== 'string') throw invalid('htm missing');
  if (typeof htu !== 'string') throw invalid('htu missing');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalid('iat missing');
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce.length > MAX_JTI_CHARS)) {
    throw invalid('nonce malformed');
  }
  if (htm !== expected.htm) throw invalid('htm does not match the request');
  const htuSeen = htu.length <= 2048 ? normaliseHtu(htu) : null;
  const accepted = typeof expected.htu === 'string' ? [expected.htu] : expected.htu;
  if (htuSeen === null || !accepted.some((u) => normaliseHtu(u) === htuSeen)) {
    throw invalid('htu does not match the request');
  }
  if (Math.abs(iat - expected.now / 1000) > DPOP_IAT_WINDOW_S)
    throw invalid('iat outside the accepted window');
  if (expected.accessToken !== undefined) {
    if (typeof ath !== 'string') throw invalid('ath missing');
    if (ath !== accessTokenHash(expected.accessToken)) throw invalid('ath does not match the access token');
  }
  return { jkt, jti, iat, nonce: nonce as string | undefined };
}
