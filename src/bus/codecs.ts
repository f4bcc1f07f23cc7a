import { channels, type Bus, type CommitNotices } from './types.ts';

/**
 * The typed message of one bus channel: encoded once by publishers and decoded once here for every
 * subscriber. A payload that does not decode (another version, a stray publisher) is dropped.
 */
export class ChannelCodec<M> {
  constructor(
    readonly channel: string,
    private readonly read: (value: Record<string, unknown>) => M | null,
  ) {}

  encode(message: M): string {
    return JSON.stringify(message);
  }

  /** The last payload decoded and its message: the adapters hand one payload to every subscriber. */
  private last: { payload: string; message: M | null } | null = null;

  decode(payload: string): M | null {
    if (this.last?.payload === payload) return this.last.message;
    const message = this.parse(payload);
    this.last = { payload, message };
    return message;
  }

  private parse(payload: string): M | null {
    let value: unknown;
    try {
      value = JSON.parse(payload);
    } catch {
      return null;
    }
    return typeof value === 'object' && value !== null ? this.read(value as Record<string, unknown>) : null;
  }

  publish(bus: Bus, message: M): Promise<void> {
    return bus.publish(this.channel, this.encode(message));
  }

  /** Hands `message` to this process's subscribers only (a commit notice of this process: types.ts). */
  deliverHere(notices: CommitNotices, message: M): void {
    notices.deliverHere(this.channel, this.encode(message));
  }

  /** Subscribes `handler` to the decoded messages; returns the function that unsubscribes. */
  subscribe(bus: Bus, handler: (message: M) => void): Promise<() => Promise<void>> {
    return bus.subscribe(this.channel, (payload) => {
      const message = this.decode(payload);
      if (message !== null) handler(message);
    });
  }
}

function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

export interface TelegramCommitted {
  serial: number;
  /** The committed record itself, when the notice carries it (read by telegrams/announced-record.ts). */
  record?: unknown;
}
export interface ContractsChanged {
  accountId: number;
}
export interface SocketCloseRequested {
  socketId: number;
  code: number;
}
export interface CredentialRevoked {
  digest: string;
}
export interface TelegramsPruned {
  serials: number[];
}

/**
 * Serials per `pruned` message: NOTIFY payloads are capped at 8000 bytes, and a serial takes at most
 * 16 characters with its comma.
 */
export const PRUNED_SERIALS_PER_MESSAGE = 400;

export interface StationsImported {
  kind: 'earthquake' | 'tsunami';
}

/** One codec per channel of `channels` (bus/types.ts). */
export const busCodecs = {
  telegram: new ChannelCodec<TelegramCommitted>(channels.telegram, (v) =>
    isId(v.serial) ? { serial: v.serial, ...(v.record !== undefined ? { record: v.record } : {}) } : null,
  ),
  contracts: new ChannelCodec<ContractsChanged>(channels.contracts, (v) =>
    isId(v.accountId) ? { accountId: v.accountId } : null,
  ),
  socketClose: new ChannelCodec<SocketCloseRequested>(channels.socketClose, (v) =>
    isId(v.socketId) && typeof v.code === 'number' ? { socketId: v.socketId, code: v.code } : null,
  ),
  revoked: new ChannelCodec<CredentialRevoked>(channels.revoked, (v) =>
    typeof v.digest === 'string' ? { digest: v.digest } : null,
  ),
  stations: new ChannelCodec<StationsImported>(channels.stations, (v) =>
    v.kind === 'earthquake' || v.kind === 'tsunami' ? { kind: v.kind } : null,
  ),
  pruned: new ChannelCodec<TelegramsPruned>(channels.pruned, (v) =>
    Array.isArray(v.serials) && v.serials.length <= PRUNED_SERIALS_PER_MESSAGE && v.serials.every(isId)
      ? { serials: v.serials }
      : null,
  ),
};
