import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPkce, isWellFormedVerifier, s256Challenge } from '../../src/issuer/pkce.ts';

// RFC 7636 Appendix B example.
const rfcVerifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const rfcChallenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

test('S256 challenge matches RFC 7636 Appendix B', () => {
  assert.equal(s256Challenge(rfcVerifier), rfcChallenge);
});

test('verifier charset and length (43–128 unreserved characters)', () => {
  assert.equal(isWellFormedVerifier('a'.repeat(43)), true);
  assert.equal(isWellFormedVerifier('a'.repeat(128)), true);
  assert.equal(isWellFormedVerifier('-._~AZaz09'.padEnd(43, 'x')), true);
  assert.equal(isWellFormedVerifier('a'.repeat(42)), false);
  assert.equal(isWellFormedVerifier('a'.repeat(129)), false);
  assert.equal(isWellFormedVerifier('a'.repeat(42) + '+'), false);
  assert.equal(isWellFormedVerifier('a'.repeat(42) + ' '), false);
  assert.equal(isWellFormedVerifier('a'.repeat(42) + 'é'), false);
  assert.equal(isWellFormedVerifier('a'.repeat(42) + '\n'), false);
});

test('checkPkce outcomes', () => {
  const s256 = { challenge: rfcChallenge, method: 'S256' as const };
  assert.equal(checkPkce(s256, rfcVerifier), 'ok');
  assert.equal(checkPkce(s256, undefined), 'failed');
  assert.equal(checkPkce(s256, rfcVerifier.replace('d', 'e')), 'failed');
  // The challenge itself is not a valid S256 verifier for itself.
  assert.equal(checkPkce(s256, rfcChallenge), 'failed');
  const plain = { challenge: rfcVerifier, method: 'plain' as const };
  assert.equal(checkPkce(plain, rfcVerifier), 'ok');
  assert.equal(checkPkce({ challenge: rfcVerifier, method: null }, rfcVerifier), 'ok');
  assert.equal(checkPkce(plain, rfcChallenge), 'failed');
  // Downgrade: a verifier for a code issued without a challenge.
  assert.equal(checkPkce({ challenge: null, method: null }, rfcVerifier), 'downgrade');
  assert.equal(checkPkce({ challenge: null, method: null }, undefined), 'ok');
  // A malformed verifier fails even when it equals a (malformed) plain challenge.
  assert.equal(checkPkce({ challenge: 'short', method: 'plain' }, 'short'), 'failed');
});
