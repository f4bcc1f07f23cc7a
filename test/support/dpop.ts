// Builds DPoP proofs for tests, well-formed or deliberately broken, with jose.
import { randomBytes } from 'node:crypto';
import { base64url, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { accessTokenHash } from '../../src/dpop/dpop.ts';

export interface ProofKey {
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  keyPair: { privateKey: CryptoKey; publicKey: CryptoKey };
}

export async function proofKey(
  alg: 'ES256' | 'EdDSA' | 'PS256' | 'RS256' | 'ES384' = 'ES256',
): Promise<ProofKey> {
  const pair = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
  });
  return {
    alg,
    privateKey: pair.privateKey,
    publicJwk: await exportJWK(pair.publicKey),
    keyPair: pair,
  };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  iat?: number;
  jti?: string;
  nonce?: string;
  accessToken?: string;
  /** Claims to drop or override after the defaults are filled in. */
  omit?: string[];
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

export async function makeProof(key: ProofKey, o: ProofOptions): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: o.jti ?? randomBytes(16).toString('base64url'),
    htm: o.htm ?? 'POST',
    htu: o.htu,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
    ...(o.accessToken !== undefined ? { ath: accessTokenHash(o.accessToken) } : {}),
    ...o.claims,
  };
  for (const name of o.omit ?? []) delete payload[name];
  const header: Record<string, unknown> = { alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...o.header };
  for (const name of Object.keys(header)) if (header[name] === undefined) delete header[name];
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

/** A compact JWS with arbitrary header and payload and a junk signature (for alg none / HS256 cases). */
export function unsignedProof(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  sig = '',
): string {
  const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
  return `${enc(header)}.${enc(payload)}.${sig}`;
}
