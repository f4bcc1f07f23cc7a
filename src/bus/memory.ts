import { ChannelHandlers } from './handlers.ts';
import type { Bus } from './types.ts';

/** The single-process bus: subscribers in this process only. */
export function createMemoryBus(onError: (err: unknown) => void = () => {}): Bus {
  const handlers = new ChannelHandlers(onError);
  return {
    inProcess: true,
    async publish(channel, payload) {
      // Delivered on the microtask queue, as the network adapters deliver asynchronously too.
      queueMicrotask(() => handlers.deliver(channel, payload));
    },
    async subscribe(channel, handler) {
      handlers.add(channel, handler);
      return async () => {
        handlers.remove(channel, handler);
      };
    },
    async close() {
      handlers.clear();
    },
  };
}
