/**
 * First attempts begun before their queue rows commit (docs/webhooks.md "Durability"), on the
 * embedded engine only: there this process is the only queuer, so no other can queue the same
 * telegram and claim its deliveries meanwhile, and the database works on a thread of its own, whose
 * inserts an early warning's first posts would otherwise wait for. A delivery begun so carries
 * `queued`, which resolves once its row is committed (its id then set), or once it is known that this
 * round will not queue it; its outcome is recorded only after, and only when its row is there.
 */
import type { ClaimedDelivery, QueuedClaim, QueuedDelivery } from './deliveries.ts';

interface Begun {
  d: ClaimedDelivery;
  settle(queued: boolean): void;
}

const keyOf = (r: { subscriptionId: number; serial: number }) => `${r.subscriptionId}:${r.serial}`;

export class EarlyAttempts {
  /** Begun and not yet settled, by subscription and serial. */
  private readonly begun = new Map<string, Begun>();
  /**
   * The rows of the batch under way that a committed slice queued: a round that found the
   * subscriptions changed is followed by one over the same telegrams, which must not begin them again.
   */
  private readonly queued = new Set<string>();

  /**
   * A round's rows, before they are queued: those an earlier round of the batch queued are left alone,
   * those it began and could not queue (its later slices found the subscriptions changed) are claimed
   * for the attempts under way and not begun twice, and those it began that this round no longer
   * matches are settled as not queued; of the others, those to claim are returned, to begin now.
   * `deliveryOf` makes the delivery of a row (null when its subscription was not read).
   */
  begin(
    rows: QueuedDelivery[],
    deliveryOf: (row: QueuedDelivery, queued: Promise<boolean>) => ClaimedDelivery | null,
  ): ClaimedDelivery[] {
    // Only a round after one that found the subscriptions changed has any of these to look at.
    const carried = this.begun.size > 0 || this.queued.size > 0;
    const matched = new Set<string>();
    const now: ClaimedDelivery[] = [];
    for (const row of rows) {
      if (!carried && !row.claim) continue;
      const key = keyOf(row);
      matched.add(key);
      if (this.queued.has(key)) {
        row.claim = false;
        continue;
      }
      if (this.begun.has(key)) {
        row.claim = true;
        continue;
      }
      if (!row.claim) continue;
      let settle!: (queued: boolean) => void;
      const d = deliveryOf(row, new Promise<boolean>((resolve) => (settle = resolve)));
      if (d === null) continue;
      this.begun.set(key, { d, settle });
      now.push(d);
    }
    for (const [key, b] of this.begun)
      if (!matched.has(key)) {
        this.begun.delete(key);
        b.settle(false);
      }
    return now;
  }

  /**
   * A slice committed: its rows begun early are settled (with their ids, when queued claimed); the
   * claimed rows that were not begun early are returned.
   */
  committed(rows: readonly QueuedDelivery[], claimed: readonly QueuedClaim[]): QueuedClaim[] {
    const queued = new Map(claimed.map((c) => [keyOf(c), c]));
    for (const row of rows) {
      const key = keyOf(row);
      this.queued.add(key);
      const b = this.begun.get(key);
      if (!b) continue;
      this.begun.delete(key);
      const c = queued.get(key);
      if (c) {
        b.d.id = c.id;
        queued.delete(key);
      }
      b.settle(c !== undefined);
    }
    return [...queued.values()];
  }

  /** The batch's last slice committed: the next round reads other telegrams. */
  batchQueued(): void {
    this.queued.clear();
  }

  /**
   * The round ended without queueing what it began (an error, another process queueing): none of it
   * is recorded. What its slices queued is kept: the next round may read the same telegrams.
   */
  abandon(): void {
    for (const b of this.begun.values()) b.settle(false);
    this.begun.clear();
  }
}
