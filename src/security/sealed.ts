import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the service must use again, not only recognise (a webhook's signing secret, a token it
 * posts with), sealed at rest: AES-256-GCM under a key derived from the server pepper with HKDF, so
 * the database alone never holds a usable secret. Sealed text: `v1.` + base64url(iv ‖ tag ‖ data).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(pepper: Buffer, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), `namazu sealed ${purpose}`, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url')}`;
  }

  /** The secret, or null when it was sealed under another pepper (NAMAZU_SECRET changed) or is damaged. */
  open(sealed: string): string | null {
    if (!sealed.startsWith('v1.')) return null;
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    if (raw.length < 28) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
