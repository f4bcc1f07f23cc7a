/**
 * A contract of an account ended, or its connection limit went down (the bus, or the upkeep): its
 * live sessions on this process lose the classification, and those left with none close with 4807;
 * then the sessions beyond its limit close with 4409 (docs/realtime.md "The connection limit"). A
 * session being opened meanwhile is not live yet: its opening asks `ContractChanges` whether it must
 * narrow too.
 */
import { contractedClassifications } from '../accounts/contracts.ts';
import type { Db, Queryable } from '../db/types.ts';
import { closeSessionsBeyondLimit, narrowSession, openSessionsOf } from '../sessions/socket-sessions.ts';
import { compileFilter } from './filter.ts';
import type { Hub } from './hub.ts';
import { closeCodes, closeMessages } from './protocol.ts';
import { sessionIds } from './session-ids.ts';

export async function narrowToContracts(db: Db, hub: Hub, accountId: number): Promise<void> {
  const { sessions, contracted } = await openSessionsOf(db, accountId, sessionIds(hub.connections()));
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
  // Whichever process decides which sessions go, each closes those it holds.
  closeBeyondLimit(hub, await closeSessionsBeyondLimit(db, accountId, sessionIds(hub.connections())));
}

/** Closes this process's connections of sessions closed for their account's connection limit. */
export function closeBeyondLimit(hub: Hub, socketIds: readonly number[]): void {
  for (const id of socketIds) hub.get(id)?.fail(closeCodes.connectionLimit, closeMessages.limitLowered, true);
}

/** Changes remembered by account; an opening that began before the oldest assumes its account's. */
const REMEMBERED_CHANGES = 256;

/**
 * The contract changes this process was told of, in order: an opening marks where it began, and
 * afterwards learns whether its account's contracts changed since (its redemption may have read
 * them before the change, and the narrowing of live sessions not found it).
 */
export class ContractChanges {
  private count = 0;
  /** The accounts of the latest changes, oldest first (the last `recent.length` of `count`). */
  private readonly recent: number[] = [];

  changed(accountId: number): void {
    this.count++;
    this.recent.push(accountId);
    if (this.recent.length > REMEMBERED_CHANGES) this.recent.shift();
  }

  mark(): number {
    return this.count;
  }

  changedSince(mark: number, accountId: number): boolean {
    const since = this.count - mark;
    if (since > this.recent.length) return true;
    return this.recent.slice(this.recent.length - since).includes(accountId);
  }
}

/**
 * The classifications of a session just opened that its account still holds a contract for, read
 * again until no change of its contracts comes in meanwhile; the session is narrowed to them.
 */
export async function narrowOpened(
  db: Queryable,
  changes: ContractChanges,
  session: { id: number; accountId: number; classifications: string[] },
  mark: number,
): Promise<string[]> {
  let classifications = session.classifications;
  while (changes.changedSince(mark, session.accountId)) {
    mark = changes.mark();
    const contracted = await contractedClassifications(db, session.accountId);
    const kept = classifications.filter((c) => contracted.has(c));
    if (kept.length < classifications.length) await narrowSession(db, session.id, kept);
    classifications = kept;
  }
  return classifications;
}
