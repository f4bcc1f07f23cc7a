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
 * - Yet each connection receives its `data` messages in serial order: a client resumes after the
 *   last id it received, so a telegram overtaken on its connection would never reach it. Before an
 *   EEW is written to a connection, the older queued telegrams still due to it are written to it
 *   first; the ordinary job then skips it (`Subscriber.lastSerial`: one number compared per socket).
 *   Telegrams are broadcast in increasing serials (the dispatcher's order).
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
  /** The telegram of a `data` message; null for a ping, which keeps no order. */
  record: TelegramRecord | null;
  /** Runs once the last target was written. */
  onDone?: () => void;
  /** Whether each filter admits `record`, for an EEW that overtakes this job (filled on demand). */
  admitted?: Map<CompiledFilter, boolean>;
}

/** A queued `data` message. */
type TelegramJob = Job & { record: TelegramRecord };

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
  /** The serial of the last telegram broadcast (queued, or due to nobody). */
  private lastBroadcastSerial = 0;

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

  /**
   * An attached connection joins the group of its filter: every later broadcast includes it, and no
   * earlier one (those still queued were not addressed to it).
   */
  join(conn: Subscriber): void {
    conn.lastSerial = Math.max(conn.lastSerial, this.lastBroadcastSerial);
    this.enterGroup(conn);
  }

  private enterGroup(conn: Subscriber): void {
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
   * catching up only takes the filter, which its catch-up reads for every telegram. Broadcasts
   * already queued for it still reach it, unless an EEW reaches it first: the EEW takes before it
   * those its new filter admits, and the others then pass it over.
   */
  refilter(conn: Subscriber, filter: CompiledFilter): void {
    const joined = this.groups.get(conn.filter.key)?.members.has(conn) ?? false;
    this.detach(conn);
    conn.filter = filter;
    this.attach(conn);
    if (joined) this.enterGroup(conn);
  }

  /**
   * Queues one telegram for every matching connection of this process. The first chunk is written
   * before this returns; the rest follows on later turns; `onDone` runs after the last one.
   * Returns the number of targets.
   */
  broadcast(record: TelegramRecord, passing: readonly PassingHop[], onDone?: () => void): number {
    this.lastBroadcastSerial = record.serial;
    const targets: Subscriber[] = [];
    for (const group of this.groups.values()) {
      if (matches(group.filter, record)) for (const c of group.members) targets.push(c);
    }
    if (targets.length === 0) return 0;
    const message = new Outgoing(dataMessage(record, passing), record.id);
    const job: Job = { message, targets, next: 0, record };
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
    const job: Job = { message: new Outgoing(payload), targets, next: 0, record: null };
    this.normal.push(job);
    if (!this.scheduled) this.run();
  }

  /**
   * Whether this connection has been written every broadcast meant for it: it is live (in a group,
   * not catching up) and nothing is queued. A stream then tells its client the position it stands
   * at (stream.ts).
   */
  isSettled(conn: Subscriber): boolean {
    if (this.urgent.length > 0 || this.normal.length > 0) return false;
    return this.groups.get(conn.filter.key)?.members.has(conn) ?? false;
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

  /** The ordinary lane's telegrams older than `serial`, oldest first (an EEW may overtake them). */
  private telegramsBefore(serial: number): readonly TelegramJob[] {
    if (this.normal.length === 0) return NONE_OVERTAKEN;
    return this.normal.filter((j): j is TelegramJob => j.record !== null && j.record.serial < serial);
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
      const serial = job.record?.serial;
      if (serial === undefined) {
        for (let i = job.next; i < end; i++) job.targets[i]!.deliver(job.message);
      } else {
        const overtaken = job === this.urgent[0] ? this.telegramsBefore(serial) : NONE_OVERTAKEN;
        if (overtaken.length > 0) writeOvertaking(job, serial, end, overtaken);
        else writeTelegram(job, serial, end);
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

const NONE_OVERTAKEN: readonly TelegramJob[] = [];

/** Writes telegram `serial` to targets `next` to `end`, but not to those an EEW's writes covered. */
function writeTelegram(job: Job, serial: number, end: number): void {
  const { targets, message } = job;
  for (let i = job.next; i < end; i++) {
    const conn = targets[i]!;
    if (conn.lastSerial >= serial) continue;
    conn.deliver(message);
    conn.lastSerial = serial;
  }
}

/**
 * Writes an EEW to targets `next` to `end`, each after the overtaken telegrams still due to it. One
 * is due when it is newer than the last written to the connection (so the connection joined before
 * it was queued, and its job has not reached the connection yet) and the connection's filter admits
 * it (its group was then among the job's targets).
 */
function writeOvertaking(job: Job, serial: number, end: number, overtaken: readonly TelegramJob[]): void {
  for (let i = job.next; i < end; i++) {
    const conn = job.targets[i]!;
    for (const older of overtaken) {
      if (conn.lastSerial < older.record.serial && admits(older, conn.filter)) {
        conn.deliver(older.message);
        conn.lastSerial = older.record.serial;
      }
    }
    conn.deliver(job.message);
    conn.lastSerial = serial;
  }
}

/** Whether `filter` admits the job's telegram (memoised: one evaluation per group, not per socket). */
function admits(job: TelegramJob, filter: CompiledFilter): boolean {
  const admitted = (job.admitted ??= new Map());
  let admits = admitted.get(filter);
  if (admits === undefined) {
    admits = matches(filter, job.record);
    admitted.set(filter, admits);
  }
  return admits;
}
