/**
 * Standard Webhooks signatures (docs/webhooks.md "Signatures"): `v1,` and the base64 HMAC-SHA256,
 * under the secret's key, of `<webhook-id>.<webhook-timestamp>.<body>`. Node's own HMAC, byte for
 * byte what the `standardwebhooks` package signs and verifies, at a small part of its cost (its
 * pure-JavaScript SHA-256 took most of a delivery's time in the process).
 */
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_…` secret (the base64 after the prefix). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

/**
 * The Standard Webhooks headers of one attempt: a signature under each key, space-separated (the
 * current secret's first, then the one a rotation replaced while it still signs); a receiver
 * accepts the attempt when any of them verifies.
 */
export function signedHeaders(
  keys: readonly Buffer[],
  messageId: string,
  body: Buffer,
  at: Date,
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signatures = keys.map(
    (key) =>
      `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64')}`,
  );
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}
