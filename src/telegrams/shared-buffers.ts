// Shared-memory buffers for large telegram bodies (http/shared-body.ts reads a request into them), lent
// and given back: a body of megabytes written into memory the process has written before costs no page
// faults, where fresh memory costs about 5 ms a megabyte on the event loop here (docs/telegrams.md, "Size").

/** Idle buffers kept for reuse, in all; a buffer given back beyond it is left to the collector. */
const KEPT_BYTES = 32 * 1024 * 1024;
/** Idle memory is left to the collector once no buffer was taken for this long: a burst's memory returns. */
const RELEASE_AFTER_MS = 60_000;
const SMALLEST = 64 * 1024;

/** The capacity a buffer of `size` bytes is taken from: the power of two at or above it. */
const capacityFor = (size: number) => Math.max(SMALLEST, 2 ** Math.ceil(Math.log2(size)));

export class SharedBuffers {
  /** Idle memory by capacity. */
  private readonly idle = new Map<number, SharedArrayBuffer[]>();
  /** Memory taken and not given back: only these are ever kept for reuse. */
  private readonly lent = new WeakSet<SharedArrayBuffer>();
  private idleBytes = 0;
  /** Whether a buffer was taken since the release timer last looked. */
  private takenSince = false;
  private releaseTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keptBytes = KEPT_BYTES,
    private readonly releaseAfterMs = RELEASE_AFTER_MS,
  ) {}

  /** A Buffer of exactly `size` bytes over shared memory; its bytes are whatever was there before. */
  take(size: number): Buffer {
    this.takenSince = true;
    const capacity = capacityFor(size);
    const reused = this.idle.get(capacity)?.pop();
    if (reused) this.idleBytes -= capacity;
    const memory = reused ?? new SharedArrayBuffer(capacity);
    this.lent.add(memory);
    return Buffer.from(memory, 0, size);
  }

  /**
   * Gives back a Buffer that `take` returned, once nothing reads or writes its bytes any more (a
   * worker given them included); any other Buffer, or one given back already, is ignored.
   */
  giveBack(buffer: Buffer): void {
    const memory = buffer.buffer;
    if (!(memory instanceof SharedArrayBuffer) || !this.lent.has(memory)) return;
    this.lent.delete(memory);
    if (this.idleBytes + memory.byteLength > this.keptBytes) return;
    const same = this.idle.get(memory.byteLength) ?? [];
    same.push(memory);
    this.idle.set(memory.byteLength, same);
    this.idleBytes += memory.byteLength;
    this.releaseTimer ??= setInterval(() => this.releaseWhenQuiet(), this.releaseAfterMs).unref();
  }

  /** Leaves the idle memory to the collector when no buffer was taken for a whole interval. */
  private releaseWhenQuiet(): void {
    if (this.takenSince) {
      this.takenSince = false;
      return;
    }
    this.idle.clear();
    this.idleBytes = 0;
    clearInterval(this.releaseTimer);
    this.releaseTimer = undefined;
  }

  /** Bytes kept idle for reuse (tests). */
  get keptIdle(): number {
    return this.idleBytes;
  }
}
