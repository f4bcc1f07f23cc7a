/**
 * Bytes of catch-up messages a process builds and writes in one turn of its event loop, all
 * catch-ups together (catch-up.ts). Each catch-up alone waits for its connection to drain, but a
 * few hundred resuming at once (anonymous clients of a public stream after a node's restart) would
 * each write in the same turn: tens of megabytes at once, a stall of a second in which no live
 * telegram goes out and no ingest runs (bench/public-catch-up.ts). Over the budget, a message waits
 * for a later turn, after the I/O and timers of this one, in the order they asked; a message larger
 * than the budget still goes, first in its turn.
 */
export class TurnBudget {
  /** Bytes taken in the current turn. */
  private spent = 0;
  private readonly waiting: { bytes: number; go: () => void }[] = [];
  private turnScheduled = false;

  constructor(private readonly bytesPerTurn: number) {}

  /** Resolves in a turn with room for `bytes`, after every earlier taker. */
  take(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.spent += bytes;
      this.scheduleTurn();
      return Promise.resolve();
    }
    return new Promise((go) => {
      this.waiting.push({ bytes, go });
      this.scheduleTurn();
    });
  }

  private fits(bytes: number): boolean {
    return this.spent === 0 || this.spent + bytes <= this.bytesPerTurn;
  }

  /** A new turn: the budget again, for the waiting in order while they fit. */
  private readonly turn = () => {
    this.turnScheduled = false;
    this.spent = 0;
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.spent += next.bytes;
      next.go();
    }
    if (this.spent > 0 || this.waiting.length > 0) this.scheduleTurn();
  };

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(this.turn);
  }
}
