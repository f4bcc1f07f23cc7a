import type { BusHandler } from './types.ts';

/**
 * The handlers of each channel in one process, shared by the network adapters: the adapter
 * listens once per channel and fans each message out here. A throwing handler is reported to
 * `onError` and does not stop the others.
 */
export class ChannelHandlers {
  private readonly byChannel = new Map<string, Set<BusHandler>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Adds a handler; true when it is the channel's first (the adapter must start listening). */
  add(channel: string, handler: BusHandler): boolean {
    let set = this.byChannel.get(channel);
    const first = !set;
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(handler);
    return first;
  }

  /** Removes a handler; true when the channel has none left (the adapter may stop listening). */
  remove(channel: string, handler: BusHandler): boolean {
    const set = this.byChannel.get(channel);
    if (!set?.delete(handler)) return false;
    if (set.size > 0) return false;
    this.byChannel.delete(channel);
    return true;
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  deliver(channel: string, payload: string): void {
    for (const h of this.byChannel.get(channel) ?? []) {
      try {
        h(payload);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  clear(): void {
    this.byChannel.clear();
  }
}
