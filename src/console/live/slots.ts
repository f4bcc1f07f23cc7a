/**
 * The live view's caps on open streams (docs/console-live.md "The stream"), per process: per
 * account, per client address, and in total, where the last `adminReserve` slots of the total are
 * for administrators only, so that accounts anyone can sign up for never take the administrator's
 * live view away.
 *
 * A slot is taken in one synchronous step (check and count together), before the request awaits
 * anything: concurrent requests cannot all pass the check and then all be counted.
 */

export interface SlotLimits {
  /** Streams one account may hold open at once. */
  perAccount: number;
  /** Streams one client address may hold open at once (administrators are not counted). */
  perAddress: number;
  /** Streams of this process. */
  total: number;
  /** Of `total`, slots only administrators may take. */
  adminReserve: number;
}

export interface SlotHolder {
  accountId: number;
  address: string;
  admin: boolean;
}

/** A taken slot; `release` gives it back (once, whatever calls it later). */
export interface StreamSlot {
  release(): void;
}

export class StreamSlots {
  private readonly byAccount = new Map<number, number>();
  private readonly byAddress = new Map<string, number>();
  private taken = 0;

  constructor(private readonly limits: SlotLimits) {}

  get size(): number {
    return this.taken;
  }

  /** A slot for one more stream of `holder`, or null when a cap is reached. */
  take(holder: SlotHolder): StreamSlot | null {
    const { perAccount, perAddress, total, adminReserve } = this.limits;
    const mine = this.byAccount.get(holder.accountId) ?? 0;
    const fromAddress = this.byAddress.get(holder.address) ?? 0;
    if (mine >= perAccount) return null;
    if (this.taken >= (holder.admin ? total : total - adminReserve)) return null;
    if (!holder.admin && fromAddress >= perAddress) return null;
    this.byAccount.set(holder.accountId, mine + 1);
    if (!holder.admin) this.byAddress.set(holder.address, fromAddress + 1);
    this.taken += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.taken -= 1;
        decrement(this.byAccount, holder.accountId);
        if (!holder.admin) decrement(this.byAddress, holder.address);
      },
    };
  }
}

function decrement<K>(counts: Map<K, number>, key: K): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
