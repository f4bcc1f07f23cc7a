/**
 * Who may open an anonymous connection of the public streams (docs/realtime.md "Public streams").
 * Such a connection is no session of an account: it is held by one process, which bounds how many
 * it holds in total and per client address, and counts the new ones of each address per minute in
 * the shared fixed windows (`security/failure-limiter.ts`), so every process and node shares that
 * rate. Admission asks no database: the caps are in memory, and the rate is judged from the
 * address's window as this process last saw it plus the openings it admitted whose count is not
 * answered yet. The counts are written after, together, at most every `COUNT_EVERY_MS`: one
 * statement a tenth of a second however many come in a storm (counted as they came, a statement
 * for every few openings was a good share of a storm's cost). What passes beyond the rate is what
 * the other processes admit from the address before they see its count: at most one rate's worth
 * each, once a window. An address whose count reached the rate is refused until its window ends,
 * without asking again.
 *
 * An anonymous connection's id is negative and local to the process: it never meets a session's.
 */
import type { Clock } from '../clock.ts';
import type { Metrics } from '../metrics.ts';
import { growingLru } from '../security/credential-cache.ts';
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
/** Addresses held as refused by the rate until their window ends (least recently used dropped). */
const MAX_BLOCKED_ADDRESSES = 10_000;
/** How long new connections wait to be counted together. */
const COUNT_EVERY_MS = 100;
/** Openings counted in one statement at most; more wait for the next. */
const MAX_COUNTED_TOGETHER = 10_000;

interface Held {
  address: string;
  transport: PublicTransport;
}

export class PublicAdmission {
  private readonly perAddress = new Map<string, number>();
  private readonly held = new Map<number, Held>();
  /** Slots taken. */
  private taken = 0;
  private lastId = 0;
  /** Openings admitted per address whose count is not answered yet. */
  private readonly uncounted = new Map<string, number>();
  /** When the window of each address that reached the rate ends: its count only grows until then. */
  private readonly blocked = growingLru<string, number>(MAX_BLOCKED_ADDRESSES);
  /** The address of each opening admitted and not yet counted, in order. */
  private readonly toCount: string[] = [];
  /** A count is scheduled or being written. */
  private counting = false;

  constructor(
    private readonly limits: PublicLimits,
    /** Counts new connections per address (its limit: connections per minute). */
    private readonly rate: FailureLimiter,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
    /** Told when a count could not be written (the database unreachable): those openings stay admitted. */
    private readonly onCountError: (err: unknown) => void,
  ) {}

  /** Anonymous connections open on this process. */
  get size(): number {
    return this.held.size;
  }

  /** Admits a new anonymous connection from `from` (counted as its `addressGroup`), or says why not. */
  admit(from: string, transport: PublicTransport): Admission {
    const address = addressGroup(from);
    if (this.taken >= this.limits.maxConnections) return this.refuse('total', CAP_RETRY_AFTER_SECONDS);
    if ((this.perAddress.get(address) ?? 0) >= this.limits.maxPerAddress)
      return this.refuse('address', CAP_RETRY_AFTER_SECONDS);
    const waitSeconds = this.rateWait(address);
    if (waitSeconds > 0) return this.refuse('rate', waitSeconds);
    this.take(address);
    this.count(address);
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

  /** Seconds the address must wait by its rate, judged without the database (0: admitted). */
  private rateWait(address: string): number {
    const now = this.clock.now();
    const blockedUntil = this.blocked.get(address);
    if (blockedUntil !== undefined) {
      if (blockedUntil > now) return Math.ceil((blockedUntil - now) / 1000);
      this.blocked.delete(address);
    }
    return this.rate.waitFromSeen(address, this.uncounted.get(address) ?? 0);
  }

  /** The opening is counted with the others of the next `COUNT_EVERY_MS`. */
  private count(address: string): void {
    this.uncounted.set(address, (this.uncounted.get(address) ?? 0) + 1);
    this.toCount.push(address);
    if (this.counting) return;
    this.counting = true;
    this.scheduleCount();
  }

  private scheduleCount(): void {
    setTimeout(() => void this.writeCounts(), COUNT_EVERY_MS).unref();
  }

  /** Writes the counts; an address that reached the rate is refused until its window ends. */
  private async writeCounts(): Promise<void> {
    const addresses = this.toCount.splice(0, MAX_COUNTED_TOGETHER);
    try {
      for (const [address, window] of await this.rate.count(addresses))
        if (this.rate.full(window)) this.blocked.set(address, window.endsAt);
    } catch (err) {
      this.onCountError(err);
    }
    for (const address of addresses) {
      const left = this.uncounted.get(address)! - 1;
      if (left === 0) this.uncounted.delete(address);
      else this.uncounted.set(address, left);
    }
    if (this.toCount.length > 0) this.scheduleCount();
    else this.counting = false;
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
