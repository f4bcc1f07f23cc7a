import type { Bus, BusHandler } from './types.ts';

/** The single-process bus: subscribers in this process only. */
export function createMemoryBus(): Bus {
  const handlers = new Map<string, Set<BusHandler>>();
  return {
    async publish(channel, payload) {
      const set = handlers.get(channel);
      if (!set) return;
      // Delivered on the microtask queue, as the network adapters deliver asynchronously too.
      for (const h of set) queueMicrotask(() => h(payload));
    },
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      return async () => {
        set.delete(handler);
      };
    },
    async close() {
      handlers.clear();
    },
  };
}
