/**
 * Who may open an anonymous connection of the public streams (docs/realtime.md "Public streams").
 * Such a connection is no session of an account: it is held by one process, which bounds how many
 * it holds in total and per client address, and counts the new ones of each address per minute in
 * the shared fixed windows (`security/failure-limiter.ts` `takeEach`), so every process and node
 * shares that rate: the openings that come while one count is written are counted together in the
 * next (one statement however many come in a storm). The caps are checked first, in memory; a slot
 * is held while the shared count is asked, so that concurrent openings cannot overshoot a cap.
 *
 * An anonymous connection's id is negative and local to the process: it never meets a session's.
 */
import { Batches } from '../batches.ts';
import type { Metrics } from '../metrics.ts';
import type { FailureLimiter } from '../security/failure-limiter.ts';
import { addressGroup } from '../http/client-address.ts';

export type PublicTransport = 'websocket' | 'stream';

export interface PublicLimits {
  /** Anonymous connections this process holds at most. */
  maxConnections: number;
  /** Anonymous connections one client address holds at most on this process. */
  maxPerAddress: number;
}

/** Why a connection was refused: the process's total, the address's cap, the address's rate. */
export type PublicRefusalReason = 'total' | 'address' | 'rate';

export type Admission =
  { ok: true; socketId: number } | { ok: false; reason: PublicRefusalReason; retryAfterSeconds: number };

/** What a client refused by a cap is told to wait: connections come and go within seconds. */
const CAP_RETRY_AFTER_SECONDS = 5;

interface Held {
  address: string;
  transport: PublicTransport;
}

export class PublicAdmission {
  private readonly perAddress = new Map<string, number>();
  private readonly held = new Map<number, Held>();
  /** Slots taken, admitted or still being counted. */
  private taken = 0;
  private lastId = 0;
  /** The counts of new connections per address, batched (one key: the batches of this process). */
  private readonly counts: Batches<string, number>;

  constructor(
    private readonly limits: PublicLimits,
    /** Counts new connections per address (its limit: connections per minute). */
    rate: FailureLimiter,
    private readonly metrics: Metrics,
  ) {
    this.counts = new Batches((_, addresses) => rate.takeEach(addresses));
  }

  /** Anonymous connections open on this process. */
  get size(): number {
    return this.held.size;
  }

  /** Admits a new anonymous connection from `from` (counted as its `addressGroup`), or says why not. */
  async admit(from: string, transport: PublicTransport): Promise<Admission> {
    const address = addressGroup(from);
    if (this.taken >= this.limits.maxConnections) return this.refuse('total', CAP_RETRY_AFTER_SECONDS);
    if ((this.perAddress.get(address) ?? 0) >= this.limits.maxPerAddress)
      return this.refuse('address', CAP_RETRY_AFTER_SECONDS);
    this.take(address);
    let waitSeconds: number;
    try {
      waitSeconds = await this.counts.run(0, address);
    } catch (err) {
      this.give(address);
      throw err;
    }
    if (waitSeconds > 0) {
      this.give(address);
      return this.refuse('rate', waitSeconds);
    }
    const socketId = --this.lastId;
    this.held.set(socketId, { address, transport });
    this.metrics.publicConnections.inc({ transport });
    return { ok: true, socketId };
  }

  /** The connection ended (or never opened after all); a second call does nothing. */
  release(socketId: number): void {
    const held = this.held.get(socketId);
    if (!held) return;
    this.held.delete(socketId);
    this.give(held.address);
    this.metrics.publicConnections.dec({ transport: held.transport });
  }

  private refuse(reason: PublicRefusalReason, retryAfterSeconds: number): Admission {
    this.metrics.publicRefused.inc({ reason });
    return { ok: false, reason, retryAfterSeconds };
  }

  private take(address: string): void {
    this.taken += 1;
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
  }

  private give(address: string): void {
    this.taken -= 1;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left === 0) this.perAddress.delete(address);
    else this.perAddress.set(address, left);
  }
}
