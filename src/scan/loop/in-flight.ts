// How many leased jobs a scanner holds unsettled. Claims do not wait for their sends, so without a bound a burst
// would lease far more than SQS can take before the leases run out; the bound also caps the scanner's memory.
export class InFlight {
  private count = 0
  private waiters: (() => void)[] = []
  private readonly tasks = new Set<Promise<void>>()

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.count
  }

  /** Resolves once fewer than `limit` jobs are in flight, or at once when `stopped()` says the run is over. */
  async waitForRoom(stopped: () => boolean): Promise<void> {
    while (this.count >= this.limit && !stopped()) {
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Tracks `jobs` until `task` settles; `task` must not reject. */
  track(jobs: number, task: Promise<void>, onDone: () => void): void {
    this.count += jobs
    const tracked = task.finally(() => {
      this.tasks.delete(tracked)
      this.count -= jobs
      onDone()
      this.release()
    })
    this.tasks.add(tracked)
  }

  /** Counts `jobs` held back before their sends (FIFO jobs waiting for other shards' claims: src/scan/loop/fifo-merge.ts). */
  hold(jobs: number): void {
    this.count += jobs
  }

  /** Held jobs that go to their sends (tracked from then on) or are given back. */
  unhold(jobs: number): void {
    if (jobs === 0) return
    this.count -= jobs
    this.release()
  }

  /** Wakes every waiter (room was made, or the run stops). */
  release(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w()
  }

  /** Resolves when every tracked task has settled, including tasks started meanwhile. */
  async drain(): Promise<void> {
    while (this.tasks.size) await Promise.all([...this.tasks])
  }
}
