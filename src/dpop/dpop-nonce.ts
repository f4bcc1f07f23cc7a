import { createHmac } from 'node:crypto';
import { safeEqual } from '../security/secrets.ts';

/** How long one nonce is current. A nonce stays accepted for one more step after it is replaced. */
export const DPOP_NONCE_STEP_MS = 300_000;

/**
 * Stateless DPoP server nonces (RFC 9449 §8): the nonce of a time step is an HMAC of the step
 * number under a server key, so every process sharing the key issues and accepts the same nonces
 * without storing anything.
 */
export class DpopNonces {
  private cachedStep = Number.NaN;
  private cached: [string, string] = ['', ''];

  constructor(
    private readonly key: Buffer,
    private readonly stepMs: number = DPOP_NONCE_STEP_MS,
  ) {}

  private forStep(step: number): string {
    return createHmac('sha256', this.key).update(`dpop-nonce:${step}`).digest('base64url').slice(0, 32);
  }

  /** [current, previous] nonces at `now`, recomputed only when the step changes. */
  private pair(now: number): [string, string] {
    const step = Math.floor(now / this.stepMs);
    if (step !== this.cachedStep) {
      this.cached = [this.forStep(step), this.forStep(step - 1)];
      this.cachedStep = step;
    }
    return this.cached;
  }

  /** The nonce to hand out now (`DPoP-Nonce` header). */
  current(now: number): string {
    return this.pair(now)[0];
  }

  /** True for the current nonce and the one it replaced. */
  accepts(nonce: string, now: number): boolean {
    const [current, previous] = this.pair(now);
    return safeEqual(nonce, current) || safeEqual(nonce, previous);
  }
}

/** The nonce key of an installation, derived from its pepper so every process shares it. */
export function dpopNonceKey(pepper: Buffer): Buffer {
  return createHmac('sha256', pepper).update('namazu dpop nonce key').digest();
}
