/**
 * The sender on a thread of its own (docs/webhooks.md "Which thread posts"): the attempts' HTTP
 * exchanges (connections, TLS, requests written, answers read) run beside the event loop that
 * serves the sockets and the API instead of on it. The posts begun in one turn of the event loop go
 * to the thread in one message, each distinct body once; their outcomes come back in one message per
 * turn of the thread's loop. The thread starts at the first post, or at `warm`; one that ends (it
 * should not) fails the posts it held, which are retried as any failed attempt is, under the same
 * `webhook-id`, and the next post starts another.
 */
import { Worker } from 'node:worker_threads';
import { workerLoadCode } from '../worker-code.ts';
import type { AttemptOutcome } from './deliveries.ts';
import type { OutgoingPost, PostSender, SenderOptions } from './sender.ts';

/** What the thread's `Sender` is made with: what a message carries (no name sources of a test's own). */
export type ThreadSenderOptions = Omit<SenderOptions, 'nameSources'>;

/** The posts of one turn as the thread receives them: each body once (transferred), named by its index. */
export interface PostBatch {
  bodies: ArrayBuffer[];
  posts: { id: number; url: string; headers: Record<string, string>; body: number }[];
}

/** Outcomes the thread posts back, by the posts' ids. */
export type OutcomeBatch = [id: number, outcome: AttemptOutcome][];

type Settle = (outcome: AttemptOutcome) => void;

const failed = (error: string): AttemptOutcome => ({
  ok: false,
  status: null,
  error,
  durationMs: 0,
  retryAfterMs: null,
});

export class ThreadSender implements PostSender {
  private worker: Worker | null = null;
  /** The posts the running thread holds, by id. */
  private held = new Map<number, Settle>();
  private nextId = 0;
  /** Posts of this turn, not yet handed over. */
  private turn: { id: number; post: OutgoingPost; settle: Settle }[] = [];
  private handing: NodeJS.Immediate | null = null;
  /** Closed: posts fail at once, and no thread is started again. */
  private closed = false;

  constructor(
    private readonly options: ThreadSenderOptions,
    /** Told when the thread fails (its posts fail with it). */
    private readonly onThreadError: (err: Error) => void = () => {},
  ) {}

  /** Starts the thread now, so that the first post does not wait for it. */
  warm(): void {
    if (!this.closed) this.thread();
  }

  send(post: OutgoingPost): Promise<AttemptOutcome> {
    if (this.closed) return Promise.resolve(failed('sender closed'));
    return new Promise((settle) => {
      this.turn.push({ id: this.nextId++, post, settle });
      this.handing ??= setImmediate(() => this.handOver());
    });
  }

  close(): void {
    this.closed = true;
    if (this.handing) clearImmediate(this.handing);
    this.handing = null;
    for (const { settle } of this.turn) settle(failed('sender closed'));
    this.turn = [];
    const worker = this.worker;
    this.worker = null;
    this.failHeld('sender closed');
    void worker?.terminate();
  }

  private handOver(): void {
    this.handing = null;
    const turn = this.turn;
    this.turn = [];
    const worker = this.thread();
    const bodyIndex = new Map<Buffer, number>();
    const bodies: ArrayBuffer[] = [];
    const posts = turn.map(({ id, post, settle }) => {
      this.held.set(id, settle);
      let body = bodyIndex.get(post.body);
      if (body === undefined) {
        // A copy of the body's own bytes (a Buffer may be a view of a larger pool), moved, not copied again.
        const { buffer, byteOffset, byteLength } = post.body;
        body = bodies.push(buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer) - 1;
        bodyIndex.set(post.body, body);
      }
      return { id, url: post.url, headers: post.headers, body };
    });
    worker.postMessage({ bodies, posts } satisfies PostBatch, bodies);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerLoadCode(import.meta.url, 'sender-worker'), {
      eval: true,
      workerData: this.options,
    });
    // It serves the process's posts; it does not keep the process alive.
    worker.unref();
    worker.on('message', (outcomes: OutcomeBatch) => {
      for (const [id, outcome] of outcomes) {
        this.held.get(id)?.(outcome);
        this.held.delete(id);
      }
    });
    const ended = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failHeld(why);
    };
    worker.on('error', (err) => {
      this.onThreadError(err);
      ended(`sender thread failed (${err.message})`);
    });
    worker.on('exit', () => ended('sender thread ended'));
    this.worker = worker;
    return worker;
  }

  private failHeld(why: string): void {
    const held = this.held;
    this.held = new Map();
    for (const settle of held.values()) settle(failed(why));
  }
}
