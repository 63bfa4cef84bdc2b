// Group order across shards. A job's shard comes from its id, so the jobs of one FIFO group are spread over every
// shard, and each shard is claimed on its own schedule: a claim of shard 1 can bring a group's job due at 12:00:00.010
// while the same group's job due at .005 sits on shard 3, whose claim comes a moment later. Sent as they come, the
// group would reach SQS one shard at a time.
//
// So FIFO jobs do not go to the dispatcher as their shard's claim returns them: they wait here until this scanner has
// claimed every other shard far enough, and then go in order: by due time, and jobs due in the same millisecond
// shard by shard (lowest number first), each shard's in its claim order (bucket by bucket, by id within a bucket).
// A shard's "reach" is the Redis time up to which every job due on it has been claimed: a claim that took all it
// found reaches its due-by time (or just before the earliest job it left, for a full request's claim), one cut short
// by its limit reaches just before the last job it took (claims take jobs in due-time order, and more of that
// millisecond may be left). A job of shard s due at T goes once every shard numbered below s reaches T and every
// other shard, s included, reaches T - 1: no job of its group that comes before it is left in a bucket, and those
// claimed are ahead of it here or in its lane (src/scan/dispatch/lane.ts), which sends a group's batches one after another.
// (Its own shard matters for a retry or an expired lease taken again: those come first in a claim, with a due time
// that may be later than the scheduled jobs the claim took.)
// "Due time" is a job's orderMs: for a job released for a retry, the retry time it was released for. A shard's reach
// stays below a retry waiting in it (the claim's next due time counts the inflight set), so a group's retries go in
// retry-time order whichever shard's claim returns first; the scanner fixes those times once, on one clock
// (src/scan/claims/backoff.ts). By their original due times, a retry claimed a moment before its group's earlier
// retry on another shard would go first, meet the group's block in its lane, and wait a whole backoff more.
//
// Ties go shard by shard rather than by id so that a burst due in one millisecond streams: shard 0's jobs go as
// claimed, then shard 1's, and no shard has to be claimed to its end before the first send (by id, every job of
// that millisecond would wait in memory until every shard had been claimed to its end).
//
// Shards that lag behind a held job are woken to claim at once (src/scan/loop/fifo-hold.ts): that claim, one round trip,
// is what a FIFO job waits for. Standard queues do not wait: SQS does not keep their order anyway.
//
// Why here and not by placing a group's jobs on one shard: the shard must be found from the id alone (GET, DELETE
// and PUT by id do not know the group), so a group's shard would need an id -> shard index kept in step with the
// jobs across Redis Cluster slots, which no script can do atomically. Merging costs no memory and changes no
// stored format, only a claim of each lagging shard per FIFO dispatch (SHARDS = 1: none).
import type { ClaimedJob, ClaimResult } from '../claims/claimed-job'

type Claim = Pick<ClaimResult, 'again' | 'dueByMs' | 'nextDueMs' | 'jobs'>

interface Held {
  job: ClaimedJob
  /** This scanner's claim order: keeps a shard's jobs of one millisecond in the order its claims returned them. */
  seq: number
}

export class FifoMerge {
  /** Per shard number: the Redis ms up to which every job due on the shard has been claimed by this scanner. */
  private readonly reach: number[]
  /** Per shard number: retry times of this scanner's releases to the shard that have not answered yet. */
  private readonly onTheirWay: number[][]
  /** Claimed FIFO jobs not yet free to go, in (due time, shard, claim order) after each release. */
  private held: Held[] = []
  private seq = 0

  constructor(shards: number) {
    this.reach = new Array<number>(shards).fill(-Infinity)
    this.onTheirWay = Array.from({ length: shards }, () => [])
  }

  get size(): number {
    return this.held.length
  }

  /**
   * A claim of `shard` came back with `fifo` (its FIFO jobs, in the claim's order): notes how far it reached and
   * returns the held FIFO jobs, of any shard, that may go now, in order.
   */
  claimed(shard: number, claim: Claim, fifo: readonly ClaimedJob[], reaches = true): ClaimedJob[] {
    if (reaches) this.reach[shard] = Math.max(this.reach[shard]!, reachOf(claim))
    for (const job of fifo) this.held.push({ job, seq: this.seq++ })
    if (this.held.length === 0) return []
    this.held.sort(inOrder)
    // below[s]: the least reach of shards 0..s-1; from[s]: of shards s..n-1.
    const n = this.reach.length
    const below = new Array<number>(n + 1).fill(Infinity)
    const from = new Array<number>(n + 1).fill(Infinity)
    for (let s = 0; s < n; s++) below[s + 1] = Math.min(below[s]!, this.reached(s))
    for (let s = n - 1; s >= 0; s--) from[s] = Math.min(from[s + 1]!, this.reached(s))
    let free = 0
    for (const { job } of this.held) {
      if (below[job.shard]! < job.orderMs || from[job.shard]! < job.orderMs - 1) break
      free++
    }
    return free ? this.held.splice(0, free).map((h) => h.job) : []
  }

  /** Whether `shard` must claim before the first held job can go. */
  lags(shard: number): boolean {
    const first = this.held[0]?.job
    if (!first) return false
    return this.reached(shard) < (shard < first.shard ? first.orderMs : first.orderMs - 1)
  }

  /**
   * FIFO jobs of `shard` go back to it for a retry at `retryAtMs` (their place in their group when claimed again).
   * Until that release has run, they are still leased: a claim of the shard meanwhile finds none of them and reports
   * the shard claimed up to its time, which may be past their retry time (a held-back job's is its blocker's, fixed
   * earlier; a loaded Redis or event loop delays the release). Taken at its word, the later jobs of their group on
   * other shards would go first. So the shard counts as claimed up to just before `retryAtMs` while the release is on
   * its way and after: only its next claim, which runs after the release (one connection answers in order), reaches
   * further. Returns what to call once the release has answered or failed.
   */
  releasing(shard: number, retryAtMs: number): () => void {
    const pending = this.onTheirWay[shard]!
    pending.push(retryAtMs)
    let answered = false
    return () => {
      if (answered) return
      answered = true
      pending.splice(pending.indexOf(retryAtMs), 1)
      this.reach[shard] = Math.min(this.reach[shard]!, retryAtMs - 1)
    }
  }

  /**
   * Jobs were put back behind this scanner's back (a resume: src/flow/flow-resume.ts), due at their old places: no
   * shard counts as claimed anywhere until it is claimed again.
   */
  forgetReach(): void {
    this.reach.fill(Number.NEGATIVE_INFINITY)
  }

  /** How far `shard` has been claimed, below any retry on its way to it. */
  private reached(shard: number): number {
    const pending = this.onTheirWay[shard]!
    return pending.length ? Math.min(this.reach[shard]!, Math.min(...pending) - 1) : this.reach[shard]!
  }

  /** The run ends: every held job, to be given back for the next run. */
  takeAll(): ClaimedJob[] {
    const all = this.held.map((h) => h.job)
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

const inOrder = (a: Held, b: Held): number =>
  a.job.orderMs - b.job.orderMs || a.job.shard - b.job.shard || a.seq - b.seq
