/**
 * Fan-out of telegrams to this process's connections (docs/realtime.md "Fan-out").
 *
 * - Connections with equal filters share a subscription group; matching is done once per group.
 * - A `data` message does not depend on the group (the filter only decides whether it is sent), so
 *   it is serialised once per telegram, framed once per transport (`Outgoing`: a WebSocket frame, a
 *   server-sent event), and the same bytes are written to every connection.
 * - A resuming connection is attached (found by id: closed by its account, cut off, pinged) before
 *   it joins a group: it receives no broadcast until its catch-up has reached the dispatcher's
 *   position (catch-up.ts).
 * - Sending is a queue of jobs in two lanes: EEW first, everything else after. A job sends to at most
 *   `chunkSize` sockets per turn of the event loop, then yields with setImmediate, so an EEW that
 *   arrives during a large broadcast goes out before the rest of that broadcast, and pongs, HTTP
 *   requests and timers keep running.
 */
import type { TelegramRecord } from '../telegrams/record.ts';
import type { CompiledFilter } from './filter.ts';
import { matches } from './filter.ts';
import { Outgoing } from './outgoing.ts';
import type { PassingHop } from './protocol.ts';
import { dataMessage } from './protocol.ts';
import type { Subscriber } from './subscriber.ts';

interface Group {
  filter: CompiledFilter;
  members: Set<Subscriber>;
}

interface Job {
  message: Outgoing;
  targets: Subscriber[];
  next: number;
  /** Runs once the last target was written. */
  onDone?: () => void;
}

export interface HubOptions {
  /** Sockets written per turn of the event loop before yielding. */
  chunkSize: number;
}

export function isEew(record: TelegramRecord): boolean {
  return record.classification.startsWith('eew.');
}

export class Hub {
  private readonly groups = new Map<string, Group>();
  private readonly bySocketId = new Map<number, Subscriber>();
  private readonly urgent: Job[] = [];
  private readonly normal: Job[] = [];
  private scheduled = false;
  private readonly idle: (() => void)[] = [];
  /** Waiting for the last connection to leave (shutdown). */
  private readonly emptiedWaiters: (() => void)[] = [];
  /** When the last queued job was written (performance.now()): live delivery quiet since then. */
  private lastWrittenAt = -Infinity;

  constructor(private readonly options: HubOptions) {}

  get size(): number {
    return this.bySocketId.size;
  }

  get(socketId: number): Subscriber | undefined {
    return this.bySocketId.get(socketId);
  }

  connections(): IterableIterator<Subscriber> {
    return this.bySocketId.values();
  }

  /** Adds a connection to the group of its filter; members share the group's compiled filter. */
  add(conn: Subscriber): void {
    this.attach(conn);
    this.join(conn);
  }

  /** Makes a connection findable by id (and pinged) without delivering broadcasts to it yet. */
  attach(conn: Subscriber): void {
    this.bySocketId.set(conn.socketId, conn);
  }

  /** Whether this connection is attached (not removed since). */
  holds(conn: Subscriber): boolean {
    return this.bySocketId.get(conn.socketId) === conn;
  }

  /** An attached connection joins the group of its filter: every later broadcast includes it. */
  join(conn: Subscriber): void {
    let group = this.groups.get(conn.filter.key);
    if (!group) {
      group = { filter: conn.filter, members: new Set() };
      this.groups.set(conn.filter.key, group);
    }
    // Equal keys are equal filters: an idle connection keeps no filter of its own.
    conn.filter = group.filter;
    group.members.add(conn);
  }

  remove(conn: Subscriber): void {
    if (!this.detach(conn)) return;
    if (this.bySocketId.size === 0) for (const resolve of this.emptiedWaiters.splice(0)) resolve();
  }

  /** Resolves once no connection is left (shutdown waits for its close frames to be answered). */
  emptied(): Promise<void> {
    if (this.bySocketId.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptiedWaiters.push(resolve));
  }

  /** Takes the connection out of the hub and its group; false when it was not attached. */
  private detach(conn: Subscriber): boolean {
    if (this.bySocketId.get(conn.socketId) !== conn) return false;
    this.bySocketId.delete(conn.socketId);
    const group = this.groups.get(conn.filter.key);
    if (!group) return true;
    group.members.delete(conn);
    if (group.members.size === 0) this.groups.delete(conn.filter.key);
    return true;
  }

  /**
   * Moves a live connection to the group of its new filter (after a contract change); one still
   * catching up only takes the filter, which its catch-up reads for every telegram.
   */
  refilter(conn: Subscriber, filter: CompiledFilter): void {
    const joined = this.groups.get(conn.filter.key)?.members.has(conn) ?? false;
    this.detach(conn);
    conn.filter = filter;
    this.attach(conn);
    if (joined) this.join(conn);
  }

  /**
   * Queues one telegram for every matching connection of this process. The first chunk is written
   * before this returns; the rest follows on later turns; `onDone` runs after the last one.
   * Returns the number of targets.
   */
  broadcast(record: TelegramRecord, passing: readonly PassingHop[], onDone?: () => void): number {
    const targets: Subscriber[] = [];
    for (const group of this.groups.values()) {
      if (matches(group.filter, record)) for (const c of group.members) targets.push(c);
    }
    if (targets.length === 0) return 0;
    const job: Job = { message: new Outgoing(dataMessage(record, passing), record.id), targets, next: 0 };
    if (onDone) job.onDone = onDone;
    const urgent = isEew(record);
    (urgent ? this.urgent : this.normal).push(job);
    // An EEW is written at once even when a broadcast is already under way.
    if (urgent || !this.scheduled) this.run();
    return targets.length;
  }

  /** Queues one pre-serialised message for the given connections in the ordinary lane. */
  sendToAll(payload: Buffer, targets: Subscriber[]): void {
    if (targets.length === 0) return;
    const job: Job = { message: new Outgoing(payload), targets, next: 0 };
    this.normal.push(job);
    if (!this.scheduled) this.run();
  }

  /** Resolves once every queued job has been written (tests, shutdown). */
  drained(): Promise<void> {
    if (this.urgent.length === 0 && this.normal.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Resolves once nothing has been queued or written for `quietMs`, or after `maxWaitMs` at most
   * (then once what is queued has been written): background work (a catch-up) leaves the machine
   * to live delivery while it goes out and is read.
   */
  async quiet(quietMs: number, maxWaitMs: number): Promise<void> {
    const giveUpAt = performance.now() + maxWaitMs;
    for (;;) {
      await this.drained();
      const now = performance.now();
      const wait = Math.min(this.lastWrittenAt + quietMs, giveUpAt) - now;
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private readonly onImmediate = (): void => {
    this.scheduled = false;
    this.run();
  };

  private run(): void {
    let budget = this.options.chunkSize;
    while (budget > 0) {
      const job = this.urgent[0] ?? this.normal[0];
      if (!job) break;
      const end = Math.min(job.targets.length, job.next + budget);
      budget -= end - job.next;
      for (let i = job.next; i < end; i++) {
        const conn = job.targets[i]!;
        conn.deliver(job.message);
      }
      job.next = end;
      if (end === job.targets.length) {
        (job === this.urgent[0] ? this.urgent : this.normal).shift();
        job.onDone?.();
      }
    }
    if (this.urgent.length > 0 || this.normal.length > 0) {
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.onImmediate);
      }
    } else {
      this.lastWrittenAt = performance.now();
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }
}
