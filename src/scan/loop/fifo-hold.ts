// A run's FIFO jobs between their claim and their send: what the scanner does with each claim's jobs so that a FIFO
// group keeps its order across shards (the rule is src/scan/loop/fifo-merge.ts), and with the jobs still held when the
// run ends.
import { isFifoQueue } from '../../queues'
import type { Log } from '../../logger'
import { FifoMerge } from './fifo-merge'
import type { InFlight } from './in-flight'
import type { Leases } from '../claims/leases'
import type { RefusedJob } from '../dispatch/dispatcher'
import type { ClaimedJob, ClaimResult } from '../claims/claimed-job'
import type { ShardState } from './wake'
import type { FlowGate } from '../../flow/flow-gate'

export class FifoHold {
  private readonly merge: FifoMerge
  /** The flow settings' reads seen (FlowGate.reloads). */
  private flowReloads = 0

  constructor(
    private readonly shards: readonly ShardState[],
    /** Held jobs count as in flight: they are leased, and bound the scanner's memory like any. */
    private readonly inFlight: InFlight,
    /** Flow control: a resume puts held jobs back behind the merge's back (FlowGate.behind, FifoMerge.forgetReach). */
    private readonly flow?: Pick<FlowGate, 'reloads' | 'behind'>,
  ) {
    this.merge = new FifoMerge(shards.length)
  }

  /**
   * The jobs of one claim of `shard` that may go now: its standard ones, and the FIFO jobs (of any shard) that every
   * shard has been claimed up to. Shards that hold the others back are woken to claim at once.
   */
  take(shard: number, result: ClaimResult): ClaimedJob[] {
    if (this.flow && this.flow.reloads !== this.flowReloads) {
      // New flow settings: a resume may have put held jobs back, due at their old places, on any shard.
      this.flowReloads = this.flow.reloads
      this.merge.forgetReach()
    }
    const fifo: ClaimedJob[] = []
    const ready: ClaimedJob[] = []
    for (const job of result.jobs) (isFifoQueue(job.queue) ? fifo : ready).push(job)
    this.inFlight.hold(fifo.length)
    // A claim that ran before a resume reached its shard tells nothing of how far that shard is claimed.
    const free = this.merge.claimed(shard, result, fifo, !this.flow?.behind(result.flowEpoch))
    this.inFlight.unhold(free.length)
    ready.push(...free)
    if (this.merge.size > 0) {
      for (const s of this.shards) if (this.merge.lags(s.keys.shard)) s.wake?.()
      this.inFlight.release()
    }
    return ready
  }

  /**
   * Whether `shard` must claim again at once: a held job is due later than its claim reached (that claim ran before
   * the claim of another shard that brought the job, and its reply came after the wake-up that other claim sent).
   */
  lags(shard: number): boolean {
    return this.merge.lags(shard)
  }

  /**
   * `refused` jobs of `shard` are about to be released, each at its retry time: the FIFO ones hold their shard's reach
   * below it until the release has answered (FifoMerge.releasing). Returns what to call then.
   */
  releasing(shard: number, refused: readonly RefusedJob[], leases: Pick<Leases, 'retryAt'>): () => void {
    let soonest = Infinity
    for (const r of refused) if (isFifoQueue(r.job.queue)) soonest = Math.min(soonest, leases.retryAt(r.job, r.after))
    return soonest === Infinity ? () => {} : this.merge.releasing(shard, soonest)
  }

  /** FIFO jobs of `shard` are held for flow control until `atMs` at the soonest: as `releasing`, for that time. */
  holding(shard: number, atMs: number): () => void {
    return this.merge.releasing(shard, atMs)
  }

  /** A resume put held jobs back (FifoMerge.forgetReach). */
  forgetReach(): void {
    this.merge.forgetReach()
  }

  /**
   * Whether `shard` should claim even though the scanner is full: it lags behind a held job, and held jobs take half
   * the room or more (they would otherwise wait for room that only they hold).
   */
  mustClaim(shard: number): boolean {
    return this.merge.lags(shard) && this.merge.size * 2 >= this.inFlight.size
  }

  /**
   * The run ends: held jobs go back, due at once, for the next run (or the one taking over) to send in its first
   * claims, in order again. Sent now, they could overtake a job of their group that no claim of this run reached.
   */
  giveBack(leases: Leases, logger: Log): void {
    const left = this.merge.takeAll()
    if (left.length === 0) return
    this.inFlight.unhold(left.length)
    const byShard = new Map<number, ClaimedJob[]>()
    for (const job of left) byShard.get(job.shard)?.push(job) ?? byShard.set(job.shard, [job])
    const task = Promise.all(
      [...byShard].map(([n, held]) =>
        leases.release(
          this.shards[n]!.keys,
          held.map((job) => ({
            id: job.id,
            token: job.token,
            attempt: job.attempt,
            error: 'not sent: the scan run ended before every shard was claimed up to its due time (FIFO order)',
            jobsFault: false,
            // Due at once, in the place it had: the next run's claims put the group in its order again.
            retryAtMs: job.orderMs,
          })),
        ),
      ),
    ).then(
      () => {},
      // Not given back: the leases expire and the next claims take the jobs then.
      (e) => logger.error('giving back FIFO jobs failed', { jobs: left.length, error: String(e) }),
    )
    this.inFlight.track(left.length, task, () => {})
  }
}
