import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Prefixes of every secret the service issues (docs/api-contract.md "Credentials"). */
export const prefixes = {
  clientId: 'CId.',
  clientSecret: 'CSt.',
  code: 'ACe.',
  accessToken: 'ATn.',
  refreshToken: 'ARh.',
  apiKey: 'AKe.',
  invitation: 'INv.',
} as const;

/** A new secret: the prefix plus 256 random bits, base64url. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Digest stored in place of a secret: HMAC-SHA-256 with the server pepper, hex. Lookups go by
 * digest, so the database never holds a usable secret.
 */
export function digestSecret(pepper: Buffer, secret: string): string {
  return createHmac('sha256', pepper).update(secret).digest('hex');
}

/** Constant-time string comparison (lengths are compared first; length is not secret here). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, len: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, len, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Password hash as `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await scryptAsync(password, salt, expected.length);
  return timingSafeEqual(key, expected);
}
