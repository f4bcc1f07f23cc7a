import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateJwkThumbprint, exportJWK, generateSecret } from 'jose';
import { DpopError, normaliseHtu, verifyDpopProof } from '../../src/dpop/dpop.ts';
import { DpopNonces } from '../../src/dpop/dpop-nonce.ts';
import { makeProof, proofKey, unsignedProof } from '../support/dpop.ts';

const htu = 'https://auth.example/account/oauth2/v1/token';
const now = 1_800_000_000_000;
const iat = now / 1000;
const expected = { htm: 'POST', htu, now };

async function rejects(proof: string, why: RegExp, exp = expected) {
  await assert.rejects(verifyDpopProof(proof, exp), (e: unknown) => {
    assert.ok(e instanceof DpopError);
    assert.equal(e.code, 'invalid_dpop_proof');
    assert.match(e.message, why);
    return true;
  });
}

test('valid proofs of every advertised algorithm give the key thumbprint', async () => {
  for (const alg of ['ES256', 'EdDSA', 'PS256', 'RS256'] as const) {
    const key = await proofKey(alg);
    const v = await verifyDpopProof(await makeProof(key, { htu, iat }), expected);
    assert.equal(v.jkt, await calculateJwkThumbprint(key.publicJwk, 'sha256'), alg);
    assert.equal(v.iat, iat);
  }
});

test('syntax, typ and alg', async () => {
  const key = await proofKey();
  await rejects('not-a-jwt', /compact/);
  const good = await makeProof(key, { htu, iat });
  await rejects(`${good}, ${good}`, /compact/);
  await rejects(good + '.x', /compact/);
  await rejects('x'.repeat(9000), /too large/);
  await rejects(await makeProof(key, { htu, iat, header: { typ: undefined } }), /typ/);
  await rejects(await makeProof(key, { htu, iat, header: { typ: 'JWT' } }), /typ/);
  const payload = { jti: 'a', htm: 'POST', htu, iat };
  await rejects(unsignedProof({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }, payload), /compact|alg/);
  await rejects(unsignedProof({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }, payload, 'AA'), /alg/);
  await rejects(unsignedProof({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.publicJwk }, payload, 'AA'), /alg/);
  await rejects(await makeProof(await proofKey('ES384'), { htu, iat }), /alg/);
});

test('jwk: missing, not an object, private, symmetric, mismatched', async () => {
  const key = await proofKey();
  const payload = { jti: 'a', htm: 'POST', htu, iat };
  await rejects(await makeProof(key, { htu, iat, header: { jwk: undefined } }), /jwk header missing/);
  await rejects(await makeProof(key, { htu, iat, header: { jwk: 'abc' } }), /jwk header missing/);
  await rejects(await makeProof(key, { htu, iat, header: { jwk: [key.publicJwk] } }), /jwk header missing/);
  const priv = await exportJWK(key.privateKey);
  await rejects(await makeProof(key, { htu, iat, header: { jwk: priv } }), /public/);
  const secret = await exportJWK(await generateSecret('HS256', { extractable: true }));
  await rejects(unsignedProof({ alg: 'ES256', typ: 'dpop+jwt', jwk: secret }, payload, 'AA'), /public|match/);
  const ed = await proofKey('EdDSA');
  await rejects(await makeProof(key, { htu, iat, header: { jwk: ed.publicJwk } }), /match/);
  await rejects(
    await makeProof(key, { htu, iat, header: { jwk: { ...key.publicJwk, x: 'AAAA' } } }),
    /usable|signature/,
  );
});

test('signature: tampered or signed by another key', async () => {
  const key = await proofKey();
  const other = await proofKey();
  const proof = await makeProof(key, { htu, iat });
  const [h, p, s] = proof.split('.');
  const flipped = (s![0] === 'A' ? 'B' : 'A') + s!.slice(1);
  await rejects(`${h}.${p}.${flipped}`, /signature/);
  await rejects(await makeProof(other, { htu, iat, header: { jwk: key.publicJwk } }), /signature/);
});

test('claims: each of jti/htm/htu/iat missing, wrong htm/htu, iat window, jti size', async () => {
  const key = await proofKey();
  for (const claim of ['jti', 'htm', 'htu', 'iat']) {
    await rejects(await makeProof(key, { htu, iat, omit: [claim] }), new RegExp(claim));
  }
  await rejects(await makeProof(key, { htu, iat, htm: 'GET' }), /htm/);
  await rejects(await makeProof(key, { htu: 'https://auth.example/account/oauth2/v1/revoke', iat }), /htu/);
  await rejects(await makeProof(key, { htu: 'https://other.example/account/oauth2/v1/token', iat }), /htu/);
  await rejects(await makeProof(key, { htu: 'http://auth.example/account/oauth2/v1/token', iat }), /htu/);
  await rejects(await makeProof(key, { htu, iat: iat + 3600 }), /iat/);
  await rejects(await makeProof(key, { htu, iat: iat - 3600 }), /iat/);
  await rejects(await makeProof(key, { htu, iat: iat - 61 }), /iat/);
  await rejects(await makeProof(key, { htu, iat, claims: { iat: '1800000000' } }), /iat/);
  await rejects(await makeProof(key, { htu, iat, jti: 'j'.repeat(257) }), /jti too long/);
  // A 10 KB jti makes the whole proof too large before anything else is looked at.
  await rejects(await makeProof(key, { htu, iat, jti: 'j'.repeat(10_000) }), /too large/);
  for (const skew of [-60, -10, 10, 60]) {
    await verifyDpopProof(await makeProof(key, { htu, iat: iat + skew }), expected);
  }
});

test('htu normalisation: query and fragment ignored, host case and default port normalised', async () => {
  const key = await proofKey();
  for (const variant of [
    `${htu}?x=1`,
    `${htu}#frag`,
    'https://AUTH.Example/account/oauth2/v1/token',
    'https://auth.example:443/account/oauth2/v1/token',
    'HTTPS://auth.example/account/oauth2/v1/token',
  ]) {
    await verifyDpopProof(await makeProof(key, { htu: variant, iat }), expected);
  }
  assert.equal(normaliseHtu('http://127.0.0.1:80/a?b#c'), 'http://127.0.0.1/a');
  assert.equal(normaliseHtu('ftp://x/a'), null);
  assert.equal(normaliseHtu('not a url'), null);
});

test('ath binds the proof to the access token', async () => {
  const key = await proofKey();
  const exp = { htm: 'GET', htu: 'https://api.example/v2/telegram', now, accessToken: 'ATn.abc' };
  await verifyDpopProof(await makeProof(key, { htm: 'GET', htu: exp.htu, iat, accessToken: 'ATn.abc' }), exp);
  await rejects(await makeProof(key, { htm: 'GET', htu: exp.htu, iat }), /ath missing/, exp);
  await rejects(
    await makeProof(key, { htm: 'GET', htu: exp.htu, iat, accessToken: 'ATn.other' }),
    /ath/,
    exp,
  );
});

test('stateless nonces: current and previous step accepted, older and foreign rejected', () => {
  const nonces = new DpopNonces(Buffer.from('k1'), 300_000);
  const t0 = 1_800_000_000_000;
  const n0 = nonces.current(t0);
  assert.equal(nonces.current(t0 + 1), n0);
  assert.equal(nonces.accepts(n0, t0), true);
  assert.equal(nonces.accepts(n0, t0 + 300_000), true);
  assert.equal(nonces.accepts(n0, t0 + 600_000), false);
  assert.notEqual(nonces.current(t0 + 300_000), n0);
  assert.equal(nonces.accepts('x', t0), false);
  // Another process with the same key agrees; one with another key does not.
  assert.equal(new DpopNonces(Buffer.from('k1'), 300_000).accepts(n0, t0), true);
  assert.equal(new DpopNonces(Buffer.from('k2'), 300_000).accepts(n0, t0), false);
});
