// Group order across shards. A job's shard comes from its id, so the jobs of one FIFO group are spread over every
// shard, and each shard is claimed on its own schedule: a claim of shard 1 can bring a group's job due at 12:00:00.010
// while the same group's job due at .005 sits on shard 3, whose claim comes a moment later. Sent as they come, the
// group would reach SQS one shard at a time.
//
// So FIFO jobs do not go to the dispatcher as their shard's claim returns them: they wait here until this scanner has
// claimed every shard up to their due time, and then go in due-time order (equal due times: by id). A shard's
// "reach" is the Redis time up to which every job due on it has been claimed: a claim that took all it found reaches
// its due-by time (or just before the earliest job it left, for a full request's claim), one cut short by its limit
// reaches just before the last job it took (claims take jobs in due-time order). A job due at T goes once every
// shard reaches T: no job of its group due before T can be in a bucket any more, and those claimed are ahead of it
// here or in its lane (src/scan/lane.ts), which sends a group's batches one after another. Shards that lag behind a
// held job are woken to claim at once (src/scan/scanner.ts): that claim, one round trip, is what a FIFO job waits
// for. Standard queues do not wait: SQS does not keep their order anyway.
//
// Why here and not by placing a group's jobs on one shard: the shard must be found from the id alone (GET, DELETE
// and PUT by id do not know the group), so a group's shard would need an id -> shard index kept in step with the
// jobs across Redis Cluster slots, which no script can do atomically. Merging costs no memory and changes no
// stored format, only a claim of each lagging shard per FIFO dispatch (SHARDS = 1: none).
import type { ClaimedJob, ClaimResult } from './leases'

type Claim = Pick<ClaimResult, 'again' | 'dueByMs' | 'nextDueMs' | 'jobs'>

export class FifoMerge {
  /** Per shard number: the Redis ms up to which every job due on the shard has been claimed by this scanner. */
  private readonly reach: number[]
  /** Claimed FIFO jobs not yet free to go, in (due time, id) order after each release. */
  private held: ClaimedJob[] = []

  constructor(shards: number) {
    this.reach = new Array<number>(shards).fill(-Infinity)
  }

  get size(): number {
    return this.held.length
  }

  /**
   * A claim of `shard` came back with `fifo` (its FIFO jobs): notes how far it reached and returns the held FIFO jobs,
   * of any shard, that may go now, in group order.
   */
  claimed(shard: number, claim: Claim, fifo: readonly ClaimedJob[]): ClaimedJob[] {
    this.reach[shard] = Math.max(this.reach[shard]!, reachOf(claim))
    if (fifo.length) this.held.push(...fifo)
    if (this.held.length === 0) return []
    const upTo = Math.min(...this.reach)
    this.held.sort(byDueThenId)
    let n = 0
    while (n < this.held.length && this.held[n]!.dueMs <= upTo) n++
    return n ? this.held.splice(0, n) : []
  }

  /** Whether `shard` must claim before a held job can go. */
  lags(shard: number): boolean {
    return this.held.length > 0 && this.reach[shard]! < this.held[0]!.dueMs
  }

  /** The run ends: every held job, to be given back for the next run. */
  takeAll(): ClaimedJob[] {
    const all = this.held
    this.held = []
    return all
  }
}

/** How far a claim reached (see the top of this file): -Infinity when it tells nothing. */
function reachOf(claim: Claim): number {
  if (claim.again) {
    // Cut short: scheduled jobs (attempt 1; retries and expired leases come first, with older due times) came out in
    // due-time order, so every job due before the last one taken is taken; more of its millisecond may be left.
    let last = -Infinity
    for (const job of claim.jobs) if (job.attempt === 1 && job.dueMs > last) last = job.dueMs
    return last - 1
  }
  return Math.min(claim.dueByMs, claim.nextDueMs === null ? Infinity : claim.nextDueMs - 1)
}

const byDueThenId = (a: ClaimedJob, b: ClaimedJob): number =>
  a.dueMs - b.dueMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
