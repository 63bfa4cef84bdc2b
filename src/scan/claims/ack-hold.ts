// Acks that ride with the shard's next claim.
//
// In a steady stream (jobs due one by one, tens of milliseconds apart) each job is its own claim, send and ack, and
// the scanner sleeps in between. Every round trip to Redis ends in a wait, and waking from a wait costs CPU of its
// own: on a Firecracker VM (Lambda's, and the bench machine's) a job cost 2.6 ms of CPU in a stream of 40 a second
// against 0.07 ms in a burst (bench/cpu.ts). So when the shard sleeps until a job due within `holdMs`, a finished
// send's ack waits for that job's claim, and both are written in the same tick: one wait instead of two. Otherwise, and whenever the shard
// is not asleep (a burst, the run ending), the ack goes at once, as before.
//
// Why it is safe: the hold is bounded by a timer (100 ms by default), and an ack is held only while every one of its
// jobs keeps its lease for the hold and LEASE_MARGIN_MS more (a send may end late in its lease), so no job is claimed
// again because its ack waited. Acks merged from several sends that fail together are tried again send by send, so
// one bad item (a corrupt schedule record) cannot take the others with it. A scanner that dies while holding acks
// leaves their leases to expire: the jobs are sent again, as after a crash between a send and its ack.
import type { ShardKeys } from '../../store/keys'
import type { Leases } from './leases'
import type { ClaimedJob } from './claimed-job'
import type { ShardState } from '../loop/wake'

/** Lease an ack must have left, beyond the hold, to be held. */
const LEASE_MARGIN_MS = 1_000

interface Waiter {
  jobs: ClaimedJob[]
  resolve(): void
  reject(e: unknown): void
}

interface Held {
  jobs: ClaimedJob[]
  waiters: Waiter[]
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
    if (!this.claimsSoon(shard) || !this.leasesOutlastHold(jobs)) return this.leases.ack(shard, jobs).then(() => {})
    let held = this.held.get(shard)
    if (!held) {
      held = { jobs: [], waiters: [], timer: setTimeout(() => this.flush(shard), this.holdMs) }
      this.held.set(shard, held)
    }
    held.jobs.push(...jobs)
    const waiters = held.waiters
    return new Promise<void>((resolve, reject) => waiters.push({ jobs, resolve, reject }))
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
        if (held.waiters.length === 1) return held.waiters[0]!.reject(e)
        for (const w of held.waiters) this.leases.ack(shard, w.jobs).then(() => w.resolve(), w.reject)
      },
    )
  }

  flushAll(): void {
    for (const shard of [...this.held.keys()]) this.flush(shard)
  }

  private leasesOutlastHold(jobs: readonly ClaimedJob[]): boolean {
    const needed = Date.now() + this.holdMs + LEASE_MARGIN_MS
    return jobs.every((j) => j.leaseDeadline > needed)
  }

  private claimsSoon(shard: ShardKeys): boolean {
    if (this.holdMs <= 0) return false
    const state = this.shards.find((s) => s.keys === shard)
    // Only a sleep that ends at a due time: its claim is work the scanner does anyway. A poll's claim would carry the
    // ack too, but a lookup by id would see the job dispatching for longer, for no saving in a stream.
    return !!state?.wake && !!state.sleepsForDue && state.sleepingUntil - Date.now() <= this.holdMs
  }
}
