/**
 * Runs tasks one after another per account, in the order they came. Session starts and ticket
 * redemptions take the account's row lock in the database; a storm of them for one account would
 * otherwise hold every pooled connection waiting on that lock, and the delivery's own reads (the
 * telegrams to broadcast) would wait behind them. Queued here, each account holds at most one
 * pooled connection per queue.
 */
export class AccountQueue {
  /** The last task queued per account; removed once it settles with nothing queued after it. */
  private readonly tails = new Map<number, Promise<void>>();

  run<T>(accountId: number, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(accountId, tail);
    void tail.then(() => {
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    });
    return result;
  }
}
