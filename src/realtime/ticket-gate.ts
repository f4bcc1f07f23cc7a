/**
 * The session gate of this process (gate.ts): a ticket redeemed in the session store opens its
 * session here (the open-sockets figure, the cut-off tracker); the end of its connection is recorded.
 */
import type { Clock } from '../clock.ts';
import type { Db } from '../db/types.ts';
import type { Metrics } from '../metrics.ts';
import type { SessionStore, SocketSession } from '../sessions/socket-sessions.ts';
import { endSessions, openSession } from '../sessions/socket-sessions.ts';
import { narrowOpened, type ContractChanges } from './contract-change.ts';
import type { CutOffTracker } from './cut-off.ts';
import { deliveryFilterOf, type OpenedSession, type Refusal, type SessionGate } from './gate.ts';
import { closeCodes, closeMessages } from './protocol.ts';

const refusals: Record<'unknown' | 'full' | 'no-contract', Refusal> = {
  unknown: { code: closeCodes.unknownTicket, message: closeMessages.unknownTicket },
  full: { code: closeCodes.connectionLimit, message: closeMessages.connectionLimit },
  'no-contract': { code: closeCodes.contractEnded, message: closeMessages.contractEnded },
};

export interface TicketGateOptions {
  db: Db;
  store: SessionStore;
  clock: Clock;
  metrics: Metrics;
  /** This server's name in the session list (`server`). */
  server: string;
  /** The id this process's signs of life are recorded under (liveness.ts). */
  processId: string;
  cutOff: CutOffTracker;
  /** The contract changes this process was told of (a redemption may have read contracts before one). */
  contractChanges: ContractChanges;
  onError: (err: unknown) => void;
}

export class TicketGate implements SessionGate {
  /** Sessions recorded closed when the server closed their socket, whose peer has not answered yet. */
  private readonly ended = new Set<number>();

  constructor(private readonly options: TicketGateOptions) {}

  async open(ticket: string, ipAddress: string | null): Promise<OpenedSession | Refusal> {
    const { store, clock, server, processId, db, contractChanges } = this.options;
    const mark = contractChanges.mark();
    const opened = await openSession(store, ticket, { ipAddress, server, processId, now: clock.now() });
    if (!opened.ok) return refusals[opened.reason];
    const { session } = opened;
    this.options.metrics.openWebSockets.inc();
    this.options.cutOff.opened(session.id, session.credentialDigest);
    // A contract that ended during the redemption: the connection starts without it, or not at all.
    const classifications = await narrowOpened(db, contractChanges, session, mark).catch((err: unknown) => {
      this.closed(session.id, closeCodes.serverRestart);
      throw err;
    });
    if (classifications.length === 0) {
      this.closed(session.id, closeCodes.contractEnded);
      return refusals['no-contract'];
    }
    return openedSession({ ...session, classifications });
  }

  closing(socketId: number, code: number): void {
    const { db, clock, onError } = this.options;
    this.ended.add(socketId);
    endSessions(db, [socketId], clock.now(), code).catch(onError);
  }

  closed(socketId: number, code: number | null): void {
    const { db, clock, metrics, cutOff, onError } = this.options;
    metrics.openWebSockets.dec();
    cutOff.closed(socketId);
    if (!this.ended.delete(socketId)) endSessions(db, [socketId], clock.now(), code).catch(onError);
  }
}

/** What a connection needs of its session: its filter, its name and where it resumes. */
function openedSession(s: SocketSession): OpenedSession {
  return {
    socketId: s.id,
    filter: deliveryFilterOf(s),
    appName: s.appName,
    resumeAfter: s.resumeAfter ?? null,
  };
}
