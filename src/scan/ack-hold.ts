// Acks that ride with the shard's next claim.
//
// In a steady stream (jobs due one by one, tens of milliseconds apart) each job is its own claim, send and ack, and
// the scanner sleeps in between. Every round trip to Redis ends in a wait, and waking from a wait costs CPU of its
// own: on a Firecracker VM (Lambda's, and the bench machine's) a job cost 3.1 ms of CPU in a stream of 40 a second
// against 0.13 ms in a burst (bench/cpu.ts). So when the shard's next claim comes within `holdMs`, a finished send's
// ack waits for it, and both are written in the same tick: one wait instead of two. Otherwise, and whenever the shard
// is not asleep (a burst, the run ending), the ack goes at once, as before.
//
// Why it is safe: the hold is bounded by a timer (100 ms by default) and far shorter than the lease, so no job is
// claimed again because its ack waited. A scanner that dies while holding acks leaves their leases to expire: the
// jobs are sent again, as after a crash between a send and its ack, which could always happen.
import type { ShardKeys } from '../store/keys'
import type { ClaimedJob, Leases } from './leases'
import type { ShardState } from './wake'

interface Held {
  jobs: ClaimedJob[]
  waiters: { resolve(): void; reject(e: unknown): void }[]
  timer: NodeJS.Timeout
}

export class AckHold {
  private readonly held = new Map<ShardKeys, Held>()

  constructor(
    private readonly leases: Leases,
    private readonly shards: readonly ShardState[],
    private readonly holdMs: number,
  ) {}

  /** Acks `jobs` (SQS accepted them): at once, or with the shard's next claim when that comes within the hold. */
  ack(shard: ShardKeys, jobs: ClaimedJob[]): Promise<void> {
    if (!this.claimsSoon(shard)) return this.leases.ack(shard, jobs).then(() => {})
    let held = this.held.get(shard)
    if (!held) {
      held = { jobs: [], waiters: [], timer: setTimeout(() => this.flush(shard), this.holdMs) }
      this.held.set(shard, held)
    }
    held.jobs.push(...jobs)
    const waiters = held.waiters
    return new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }))
  }

  /** Sends the acks held for `shard` now. Call it right before the shard's claim, in the same tick. */
  flush(shard: ShardKeys): void {
    const held = this.held.get(shard)
    if (!held) return
    this.held.delete(shard)
    clearTimeout(held.timer)
    this.leases.ack(shard, held.jobs).then(
      () => {
        for (const w of held.waiters) w.resolve()
      },
      (e) => {
        for (const w of held.waiters) w.reject(e)
      },
    )
  }

  flushAll(): void {
    for (const shard of [...this.held.keys()]) this.flush(shard)
  }

  private claimsSoon(shard: ShardKeys): boolean {
    if (this.holdMs <= 0) return false
    const state = this.shards.find((s) => s.keys === shard)
    return !!state?.wake && state.sleepingUntil - Date.now() <= this.holdMs
  }
}
