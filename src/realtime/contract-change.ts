/**
 * A contract of an account ended (the bus): its live sessions on this process lose the
 * classification, and those left with none close with 4807 (docs/realtime.md).
 */
import type { Queryable } from '../db/types.ts';
import { narrowSession, openSessionsOf } from '../sessions/socket-sessions.ts';
import { compileFilter } from './filter.ts';
import type { Hub } from './hub.ts';
import { closeCodes, closeMessages } from './protocol.ts';

export async function narrowToContracts(db: Queryable, hub: Hub, accountId: number): Promise<void> {
  const { sessions, contracted } = await openSessionsOf(db, accountId);
  for (const s of sessions) {
    const conn = hub.get(s.id);
    if (!conn) continue;
    const kept = conn.filter.filter.classifications.filter((c) => contracted.has(c));
    if (kept.length === 0) conn.fail(closeCodes.contractEnded, closeMessages.contractEnded, true);
    else if (kept.length < conn.filter.filter.classifications.length) {
      hub.refilter(conn, compileFilter({ ...conn.filter.filter, classifications: kept }));
      await narrowSession(db, s.id, kept);
    }
  }
}
