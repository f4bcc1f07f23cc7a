import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/types.ts';

/**
 * The HMAC key for stored secrets. From NAMAZU_SECRET when set (keeps it out of the database);
 * otherwise generated on first start and kept in server_settings, so every process sharing the
 * database agrees on it.
 */
export async function loadPepper(q: Queryable, configured: string | null): Promise<Buffer> {
  if (configured !== null) return createHash('sha256').update(configured).digest();
  await q.query(
    `INSERT INTO server_settings (name, value) VALUES ('pepper', $1) ON CONFLICT (name) DO NOTHING`,
    [randomBytes(32).toString('base64')],
  );
  const rows = await q.query<{ value: string }>(`SELECT value FROM server_settings WHERE name = 'pepper'`);
  return Buffer.from(rows[0]!.value, 'base64');
}
