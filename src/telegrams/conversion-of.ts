import type { Queryable } from '../db/types.ts';
import type { TelegramRecord } from './record.ts';
import { loadTelegram } from './store.ts';

/** The JSON conversion stored for the XML telegram with this id, if any (docs/conversion.md). */
export async function loadConversionOf(q: Queryable, originalId: string): Promise<TelegramRecord | null> {
  const [row] = await q.query<{ serial: number }>('SELECT serial FROM telegrams WHERE original_id = $1', [
    originalId,
  ]);
  return row ? loadTelegram(q, row.serial) : null;
}

/** The XML telegram a conversion was made from, if it is stored. */
export async function loadOriginalOf(q: Queryable, id: string): Promise<TelegramRecord | null> {
  const [row] = await q.query<{ serial: number }>('SELECT serial FROM telegrams WHERE id = $1', [id]);
  return row ? loadTelegram(q, row.serial) : null;
}
