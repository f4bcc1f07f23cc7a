import type { Db } from '../db/types.ts';

/**
 * Where a network source stands, kept in `source_positions` (migration 100) so that a restart
 * resumes from it. The shape belongs to the source; this module only stores it.
 */
export async function loadPosition<T>(db: Db, source: string): Promise<T | null> {
  const rows = await db.query<{ position: T }>('SELECT position FROM source_positions WHERE source = $1', [
    source,
  ]);
  return rows[0]?.position ?? null;
}

export async function savePosition(db: Db, source: string, position: unknown): Promise<void> {
  await db.query(
    `INSERT INTO source_positions (source, position, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (source) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
    [source, JSON.stringify(position)],
  );
}
