/**
 * What the real-time delivery of this process listens to: its own commits (the telegram cache)
 * and a healing timer wake the dispatcher, and the bus brings the telegrams of other processes,
 * the sessions closed by their account, the revoked credentials and the contract changes.
 */
import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { TelegramCache } from '../telegrams/cache.ts';
import type { CutOffTracker } from './cut-off.ts';
import type { Dispatcher } from './dispatcher.ts';

/**
 * The delivery also looks at the store this often without an announcement, so a lost announcement
 * or a bus outage delays a telegram by at most about this much (docs/realtime.md).
 */
const HEAL_INTERVAL_MS = 1000;

export interface WakeUps {
  dispatcher: Dispatcher;
  source: TelegramCache;
  cutOff: CutOffTracker;
  /** Closes a connection whose session its account closed (4808). */
  closeByAccount: (socketId: number) => void;
  /** An account's contracts changed. */
  contractsChanged: (accountId: number) => void;
}

/** Starts listening (after the dispatcher took its position); resolves to what stops it. */
export async function listenForWakeUps(bus: Bus, on: WakeUps): Promise<() => Promise<void>> {
  const { dispatcher, cutOff } = on;
  const healing = setInterval(() => dispatcher.wake(), HEAL_INTERVAL_MS);
  healing.unref();
  // A commit of this process wakes the delivery as soon as the cache holds it, not after the bus.
  const stopCommitted = on.source.onCommitted((serial) => dispatcher.wake(serial));
  const unsubscribe = [
    await busCodecs.telegram.subscribe(bus, dispatcher.announce),
    await busCodecs.socketClose.subscribe(bus, ({ socketId }) => on.closeByAccount(socketId)),
    await busCodecs.revoked.subscribe(bus, ({ digest }) => cutOff.revoked(digest)),
    await busCodecs.contracts.subscribe(bus, ({ accountId }) => on.contractsChanged(accountId)),
  ];
  return async () => {
    clearInterval(healing);
    stopCommitted();
    for (const off of unsubscribe) await off();
  };
}
