// The API gate's slots (local/api-gate.ts): up to `max` requests at a time, but a new slot only once an answer came
// back. serverless-offline starts a worker thread for each request that finds no idle one, and a cold worker loads
// the bundled handler inside the function's timeout (10 s): 16 cold starts at once on a loaded 2-core machine can pass
// it and answer 504. Opening one more slot per answer (from `initial`) keeps the cold starts a few at a time while the
// warm workers serve the rest; after `max - initial` answers, the gate runs at `max`.
export class RampingSlots {
  private readonly waiters: (() => void)[] = []
  private active = 0
  private limit: number

  constructor(
    initial: number,
    private readonly max: number,
  ) {
    this.limit = Math.min(initial, max)
  }

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /** Frees a slot; `answered`: the request got an answer from upstream, so one more slot opens (up to max). */
  release(answered: boolean): void {
    this.active--
    if (answered && this.limit < this.max) this.limit++
    while (this.active < this.limit && this.waiters.length > 0) {
      this.active++
      this.waiters.shift()!()
    }
  }
}
