import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/types.ts';
import { DpopError, verifyDpopProof, type VerifiedProof } from './dpop.ts';
import type { DpopNonces } from './dpop-nonce.ts';
import { recordProofJti } from './dpop-replay.ts';

export interface DpopPolicy {
  db: Queryable;
  clock: Clock;
  /** Server nonces; null when configured off. */
  nonces: DpopNonces | null;
}

/**
 * The whole proof check of a request: the proof itself, then the server nonce, then `jti` replay.
 * The nonce comes after the signature so only a well-formed proof earns a nonce challenge, and the
 * `jti` is recorded last so a proof refused for its nonce does not burn its id.
 */
export async function checkDpopProof(
  policy: DpopPolicy,
  proof: string,
  expected: { htm: string; htu: string | readonly string[]; accessToken?: string },
): Promise<VerifiedProof> {
  const now = policy.clock.now();
  const verified = await verifyDpopProof(proof, { ...expected, now });
  if (policy.nonces !== null) {
    if (verified.nonce === undefined) throw new DpopError('use_dpop_nonce', 'a DPoP nonce is required');
    if (!policy.nonces.accepts(verified.nonce, now))
      throw new DpopError('use_dpop_nonce', 'the DPoP nonce is stale');
  }
  if (!(await recordProofJti(policy.db, verified.jkt, verified.jti, verified.iat))) {
    throw new DpopError('invalid_dpop_proof', 'proof already used');
  }
  return verified;
}

/** Every `DPoP` header value of a request's raw header list, in order. */
export function dpopHeaderValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'dpop')
      values.push(rawHeaders[i + 1]!);
  }
  return values;
}

/**
 * The one proof among a request's `DPoP` header values; undefined when absent. Several DPoP
 * headers make the proof invalid (RFC 9449 §4.3), which a joined header value would hide.
 */
export function singleDpopProof(values: readonly string[]): string | undefined {
  if (values.length > 1) throw new DpopError('invalid_dpop_proof', 'more than one DPoP header');
  return values[0];
}

/** The `DPoP` header's value from a request's raw header list; undefined when absent. */
export function readDpopHeader(rawHeaders: readonly string[]): string | undefined {
  return singleDpopProof(dpopHeaderValues(rawHeaders));
}
