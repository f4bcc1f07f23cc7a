/**
 * This process's signs of life (sessions/process-liveness.ts): recorded before it opens its first
 * session and every beat after, so that another process frees the slots of this one's sessions
 * within seconds if it dies. A beat that finds the previous one too old (the event loop or the pool
 * was held, the database unreachable) opens again the sessions that others closed meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { CoalescedJob } from '../coalesced-job.ts';
import type { Queryable } from '../db/types.ts';
import {
  LIVENESS_BEAT_MS,
  forgetGoneProcesses,
  forgetProcess,
  recordAlive,
  reinstateSessions,
} from '../sessions/process-liveness.ts';
import type { Hub } from './hub.ts';
import { sessionIds } from './session-ids.ts';

export class Liveness {
  /** Sessions opened by this process carry it (socket_sessions.process_id). */
  readonly processId = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  /** A beat held up (the pool busy) is not joined by the next ones: one more runs after it. */
  private readonly beats: CoalescedJob;
  /** The last beat found the record lapsed: the next one opens the sessions again too (see `beat`). */
  private reinstateAgain = false;

  constructor(
    private readonly db: Queryable,
    private readonly hub: Hub,
    onError: (err: unknown) => void,
    /** After this process's sessions were opened again: their accounts may be over their limits. */
    private readonly onReinstated: () => void = () => {},
  ) {
    this.beats = new CoalescedJob(() => this.beat(), onError);
  }

  async start(): Promise<void> {
    await forgetGoneProcesses(this.db);
    await recordAlive(this.db, this.processId);
    this.timer = setInterval(() => this.beats.request(), LIVENESS_BEAT_MS);
    this.timer.unref();
  }

  /** After the process's sessions were recorded closed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beats.idle();
    await forgetProcess(this.db, this.processId);
  }

  private async beat(): Promise<void> {
    const lapsed = await recordAlive(this.db, this.processId);
    if (!lapsed && !this.reinstateAgain) return;
    // Once more on the beat after: a start that read the lapsed record in the same moment as this
    // beat may commit its closing of these sessions after this beat opened them again.
    this.reinstateAgain = lapsed;
    await reinstateSessions(this.db, this.processId, sessionIds(this.hub.connections()));
    this.onReinstated();
  }
}
