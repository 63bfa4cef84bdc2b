// When a run last had work, and whether a claim has found nothing since: how an on-demand run tells it may end after
// its linger (src/on-demand/run/run-on-demand.ts), and how a scan worker tells the backlog it was started for is
// drained (run/worker.ts).

export class WorkWatch {
  /** Local ms of the last claimed job or settled send. */
  private lastWorkAt = -Infinity
  /** Local ms of the last claim that answered with no job. */
  private lastEmptyClaimAt = -Infinity

  /** A new run: no work yet. */
  reset(): void {
    this.lastWorkAt = -Infinity
    this.lastEmptyClaimAt = -Infinity
  }

  /** A claim answered, with this many jobs. */
  claimed(jobs: number): void {
    if (jobs > 0) this.lastWorkAt = Date.now()
    else this.lastEmptyClaimAt = Date.now()
  }

  /** Sends settled. */
  settled(): void {
    this.lastWorkAt = Date.now()
  }

  /**
   * When the run last had work: now while `busy` (sends in flight), -Infinity if it never had any. With
   * `untilEmptyClaim`, also now until a claim has found nothing since the last work: a claim that has not answered
   * yet (a starved process, a loaded Redis) is no sign that nothing is due.
   */
  lastWorkMs(busy: boolean, untilEmptyClaim: boolean): number {
    const unproven = untilEmptyClaim && this.lastEmptyClaimAt <= this.lastWorkAt
    return busy || unproven ? Date.now() : this.lastWorkAt
  }
}
