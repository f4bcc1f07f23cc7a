/**
 * Cut off (docs/realtime.md "Cut off"): the connections whose credential was revoked or whose
 * account was disabled close with 4808. Every revocation is announced on the bus after its commit:
 * a connection opened with the announced digest closes at once, and the store is asked which of
 * this process's connections are cut off (a revoked authorization whose tokens were renewed since);
 * the heartbeat asks again in case an announcement was missed.
 */
import { CoalescedJob } from '../coalesced-job.ts';
import type { Queryable } from '../db/types.ts';
import { cutOffSessions } from '../sessions/socket-sessions.ts';
import type { Hub } from './hub.ts';
import { closeCodes, closeMessages } from './protocol.ts';

export class CutOffTracker {
  /** The sessions open on this process by credential digest, and the digest of each. */
  private readonly byCredential = new Map<string, Set<number>>();
  private readonly credentialOf = new Map<number, string>();
  /** One question to the store at a time; announcements meanwhile ask one more. */
  private readonly check: CoalescedJob;

  constructor(
    db: Queryable,
    private readonly hub: Hub,
    onError: (err: unknown) => void,
  ) {
    this.check = new CoalescedJob(async () => {
      for (const socketId of await cutOffSessions(db, [...this.credentialOf.keys()])) this.cutOff(socketId);
    }, onError);
  }

  /** A session opened on this process with this credential (null: none to follow). */
  opened(socketId: number, digest: string | null): void {
    if (digest === null) return;
    this.credentialOf.set(socketId, digest);
    const ids = this.byCredential.get(digest) ?? new Set<number>();
    this.byCredential.set(digest, ids.add(socketId));
  }

  /** A session's connection ended. */
  closed(socketId: number): void {
    const digest = this.credentialOf.get(socketId);
    if (digest === undefined) return;
    this.credentialOf.delete(socketId);
    const ids = this.byCredential.get(digest)!;
    ids.delete(socketId);
    if (ids.size === 0) this.byCredential.delete(digest);
  }

  /** A credential was revoked (the bus): its connections close now, and the store is asked. */
  revoked(digest: string): void {
    for (const socketId of this.byCredential.get(digest) ?? []) this.cutOff(socketId);
    this.recheck();
  }

  /** Asks the store which of this process's connections are cut off, and closes them. */
  recheck(): void {
    this.check.request();
  }

  private cutOff(socketId: number): void {
    this.hub.get(socketId)?.fail(closeCodes.closedByAccount, closeMessages.cutOff, true);
  }
}
