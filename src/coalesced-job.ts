/**
 * A job that runs one at a time and coalesces the requests for it: a request while a run is under
 * way asks for one more run after it, however many come. The real-time dispatcher reads the store
 * this way on every wake-up, the cut-off check asks the store which connections are cut off, the
 * webhook queuer queues what was committed and its workers claim what is due.
 */
export class CoalescedJob {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly job: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Runs the job now, or once more after the run under way. */
  request(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.job()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) this.request();
      });
  }

  /** Resolves once no run is under way and none is asked for. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
