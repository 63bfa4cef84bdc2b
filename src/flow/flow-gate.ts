// The scanner's flow control (docs/flow-control.md): between a claim and its sends, the jobs of a paused queue or
// flow key are held (pending, listed, in due order: lua/flow-hold.lua) and those of a rate-limited one leave when
// its token bucket, in Redis on Redis's clock, allows (lua/flow-take.lua); the rest are held until the time the
// bucket gave them, which keeps them in the order they asked. A FIFO group whose job is held holds its later jobs
// behind it. Jobs without a flow key, of queues without a setting, pass without a Redis call.
import { isFifoQueue } from '../queues'
import type { ClaimedJob } from '../scan/claims/claimed-job'
import type { PacedJobs } from '../store/scripts/claim'
import type { Keyspace } from '../store/keys'
import type { ScriptedClient } from '../store/scripts'
import { type FlowHold, holdJobs } from './flow-hold'
import { heldBefore, pausePlace } from './held-again'
import type { FlowRate } from './flow-names'
import { NO_FLOW_SETTINGS, type FlowSettings, readFlowSettings } from './flow-settings'
import { paceSpec } from './flow-pace'
import { takeFlowTokens } from './flow-take'

/** How long a job held for a pause waits before a scanner looks at it again (a resume brings it forward at once). */
export const PAUSE_RECHECK_MS = 300_000

/**
 * How long after reading newer settings a claim that still returns an older epoch is not taken as knowing how far its
 * shard is claimed: a resume's steps are on their way to it (FifoMerge.forgetReach). Past this, a resume that died
 * half way does not keep the FIFO merge waiting: its jobs come back at their recheck.
 */
const RESUME_CATCH_UP_MS = 2_000

/**
 * How long a rate's token stays good, counted from when the scanner asked the bucket: a job let go by its key's bucket
 * that has not started its send by then is given back (not sent, asked for again: src/scan/dispatch/lane.ts), so a
 * slow SQS or a busy scanner cannot gather a limited key's jobs and let them go together. Over any span, a key's
 * sends start no faster than burst + rate x (span + this).
 */
export const TOKEN_FRESH_MS = 100

/**
 * How much later than the bucket's time a rate-held job may come back so that it comes back with others: a key's
 * held jobs are given times shared by up to 10 (one SendMessageBatch), when the rate's interval and burst allow.
 * One job a time would cost each job its own wake-up and claim in every scanner, its own bucket call and its own SQS
 * request: at 500/s, 500 of each a second, which crowd out the claims and sends of every other key.
 */
export const HELD_GROUP_MS = 25

/** A FIFO job of shard `shard` is held until `atMs` at the soonest; returns what to call once the hold has answered. */
export type OnFifoHold = (shard: number, atMs: number) => () => void

export interface FlowObserver {
  /** A job held for a pause of `name`. */
  paused?(queue: string, name: string): void
  /**
   * A job held for the rate of `name`, to leave `lateMs` after its due time. `again`: a rate already held it for this
   * attempt (a claim's pace, then the key's bucket once more), so it is not another job held.
   */
  rateHeld?(queue: string, name: string, lateMs: number, again?: boolean): void
}

export interface FlowGateOptions {
  redis: ScriptedClient
  keys: Keyspace
  observer?: FlowObserver
  recheckMs?: number
}

/** What holds a FIFO group back: a pause (its name), or a rate's send time (Redis ms) with the jobs lined up behind. */
interface Block {
  /** The held job: it does not wait behind itself when it comes back. */
  jobId: string
  pausedName?: string
  atMs?: number
  place: number
  /** Local ms: the group stops waiting then (the held job came back for its time, or was rechecked). */
  untilMs: number
}

type Verdict = { pausedName: string } | { rateName: string } | null

export class FlowGate {
  private settings: FlowSettings = NO_FLOW_SETTINGS
  private loaded = false
  private reloadedAt = 0
  private readonly blocked = new Map<string, Block>()
  private paces = ''
  /** How many times the settings were read: a scanner that sees it move forgets how far its shards were claimed. */
  reloads = 0

  constructor(private readonly o: FlowGateOptions) {}

  /** Whether a claim's epoch says the settings changed since they were read (or they never were). */
  stale(epoch: string | undefined): boolean {
    return !this.loaded || (epoch !== undefined && Number(epoch) > Number(this.settings.epoch))
  }

  /**
   * Whether a claim ran on a shard that a change read elsewhere has not reached yet (a resume on its way). A claim
   * without an epoch answered while catching up was sent before the reload (claims sent since ask for it): it may have
   * run before the change reached its shard, so it counts as behind too.
   */
  behind(epoch: string | undefined): boolean {
    return this.catchingUp() && (epoch === undefined || Number(epoch) < Number(this.settings.epoch))
  }

  /**
   * Whether claims must report their shard's epoch even when they bring no job: only shortly after a reload can a
   * shard be behind (`behind`); otherwise an empty claim's epoch tells nothing (there is nothing to send) and an idle
   * shard's claim skips reading it.
   */
  catchingUp(): boolean {
    return Date.now() - this.reloadedAt < RESUME_CATCH_UP_MS
  }

  async reload(): Promise<void> {
    this.settings = await readFlowSettings(this.o.redis, this.o.keys)
    this.loaded = true
    this.reloads++
    this.reloadedAt = Date.now()
    // While anything is paused, claims pace nothing: claims do not know pauses, and a paused job a claim paced would
    // wait for its pace time, out of its pause's held list, and spend its rate's pace without being sent.
    this.paces = this.settings.paused.size ? '' : paceSpec(this.settings.rates, groupCellMs, this.o.keys.shards.length)
    // A resume or a new rate: groups held under the old settings are decided again when their jobs come back.
    this.blocked.clear()
  }

  /** The rates claims pace a burst by (src/flow/flow-pace.ts), '' for none. */
  paceSpec(): string {
    return this.paces
  }

  /** Counts the jobs a claim held for their pace as held by their rate (its latest lateness for each). */
  paced(list: readonly PacedJobs[] | undefined): void {
    const { observer } = this.o
    if (!list || !observer?.rateHeld) return
    for (const { name, count, latestLateMs } of list) {
      // A key's jobs may be of any queue: only a queue's own rate names it.
      const queue = name.startsWith('q:') ? name.slice(2) : ''
      for (let i = 0; i < count; i++) observer.rateHeld(queue, name, latestLateMs)
    }
  }

  /**
   * A claim's jobs that flow control has nothing to say about (no pause, no rate, no FIFO group held), which go at
   * once, and the others, for pass(): jobs of other keys do not wait for a limited key's calls to Redis.
   */
  split(jobs: readonly ClaimedJob[]): { free: ClaimedJob[]; gated: ClaimedJob[] } {
    return splitJobs(this.settings, this.blocked, jobs)
  }

  /** The jobs that may be sent now, in their order; the others are held in Redis (settled: the caller forgets them). */
  async pass(jobs: readonly ClaimedJob[], onFifoHold?: OnFifoHold): Promise<ClaimedJob[]> {
    const { paused, rates } = this.settings
    if (paused.size === 0 && rates.size === 0 && this.blocked.size === 0) return jobs as ClaimedJob[]
    const verdicts = jobs.map((job) => verdictOf(this.settings, job))
    // A token's freshness counts from before the ask: the bucket gave it after this, and a scanner that stalls before
    // it reads the answer has spent that time of it too (else late readers would send with tokens given long before).
    const askedAt = Date.now()
    const sendAt = await askRates(this.o, this.settings, jobs, verdicts)
    const now = Date.now()
    const send: ClaimedJob[] = []
    const holds = new Map<number, FlowHold[]>()
    const hold = (h: FlowHold) => (holds.get(h.job.shard) ?? holds.set(h.job.shard, []).get(h.job.shard)!).push(h)
    jobs.forEach((job, i) => {
      const group = isFifoQueue(job.queue) && job.groupId ? `${job.queue}#${job.groupId}` : undefined
      const block = group ? this.blocked.get(group) : undefined
      if (block && block.untilMs > now && block.jobId !== job.id) {
        block.place++
        if (block.pausedName) hold({ job, pausedName: block.pausedName, placeMs: pausePlace(job) })
        else hold({ job, atMs: block.atMs! + block.place })
        return
      }
      const v = verdicts[i]
      if (v && 'pausedName' in v) {
        hold({ job, pausedName: v.pausedName, placeMs: pausePlace(job) })
        this.o.observer?.paused?.(job.queue, v.pausedName)
        if (group)
          this.blocked.set(group, { jobId: job.id, pausedName: v.pausedName, place: 0, untilMs: now + this.recheckMs })
        return
      }
      const at = sendAt.get(job)
      if (at) {
        hold({ job, atMs: at.atMs })
        this.o.observer?.rateHeld?.(job.queue, at.name, at.atMs - job.dueMs, heldBefore(job))
        // Until it comes back for its time: the jobs held behind it come back after it.
        if (group)
          this.blocked.set(group, { jobId: job.id, atMs: at.atMs, place: 0, untilMs: now + at.atMs - at.nowMs })
        return
      }
      if (v && 'rateName' in v) job.sendBy = askedAt + TOKEN_FRESH_MS
      send.push(job)
    })
    for (const [group, block] of this.blocked) if (block.untilMs <= now) this.blocked.delete(group)
    await Promise.all(
      [...holds].map(([n, list]) => {
        // Held FIFO jobs go back to their shard: its reach stays below them until it is claimed again.
        let soonest = Number.POSITIVE_INFINITY
        for (const h of list) {
          if (isFifoQueue(h.job.queue)) soonest = Math.min(soonest, 'atMs' in h ? h.atMs : h.job.orderMs)
        }
        const answered = soonest < Number.POSITIVE_INFINITY && onFifoHold ? onFifoHold(n, soonest) : () => {}
        const shard = this.o.keys.shards[n]!
        return holdJobs(this.o.redis, shard, this.settings.epoch, this.recheckMs, list).finally(answered)
      }),
    )
    return send
  }

  private get recheckMs(): number {
    return this.o.recheckMs ?? PAUSE_RECHECK_MS
  }
}

/** FlowGate.split: FIFO jobs are free only when no job of their group in this claim is gated, nor the group held. */
function splitJobs(settings: FlowSettings, blocked: ReadonlyMap<string, Block>, jobs: readonly ClaimedJob[]) {
  const free: ClaimedJob[] = []
  const gated: ClaimedJob[] = []
  if (settings.paused.size === 0 && settings.rates.size === 0 && blocked.size === 0) return { free: [...jobs], gated }
  const verdicts = jobs.map((job) => verdictOf(settings, job))
  const groupOf = (job: ClaimedJob) => (isFifoQueue(job.queue) ? `${job.queue}#${job.groupId ?? job.id}` : undefined)
  const held = new Set(blocked.keys())
  jobs.forEach((job, i) => {
    const group = groupOf(job)
    if (verdicts[i] && group) held.add(group)
  })
  jobs.forEach((job, i) => {
    const group = groupOf(job)
    ;(verdicts[i] || (group && held.has(group)) ? gated : free).push(job)
  })
  return { free, gated }
}

/**
 * A pause of the job's queue, key or one of its tags, else the rate that applies to it (its key's, else its queue's),
 * else none.
 */
function verdictOf(settings: FlowSettings, job: ClaimedJob): Verdict {
  const { paused, rates } = settings
  const queueName = `q:${job.queue}`
  const keyName = job.flowKey ? `k:${job.flowKey}` : undefined
  if (paused.has(queueName)) return { pausedName: queueName }
  if (keyName && paused.has(keyName)) return { pausedName: keyName }
  for (const tag of job.tags ?? []) if (paused.has(`t:${tag}`)) return { pausedName: `t:${tag}` }
  if (keyName && rates.has(keyName)) return { rateName: keyName }
  if (rates.has(queueName)) return { rateName: queueName }
  return null
}

/** Each rate-limited job's send time, when it may not leave now: one bucket call per name, in parallel. */
async function askRates(o: FlowGateOptions, settings: FlowSettings, jobs: readonly ClaimedJob[], verdicts: Verdict[]) {
  const byName = new Map<string, ClaimedJob[]>()
  jobs.forEach((job, i) => {
    const v = verdicts[i]
    if (v && 'rateName' in v) (byName.get(v.rateName) ?? byName.set(v.rateName, []).get(v.rateName)!).push(job)
  })
  const sendAt = new Map<ClaimedJob, { atMs: number; nowMs: number; name: string }>()
  await Promise.all(
    [...byName].map(async ([name, list]) => {
      const rate = settings.rates.get(name)!
      const r = await takeFlowTokens(
        o.redis,
        o.keys,
        name,
        rate,
        list.map((j) => j.id),
      )
      list.forEach((job, i) => {
        const at = r.sendAtMs[i]!
        if (at > 0) sendAt.set(job, { atMs: groupedTime(at, rate), nowMs: r.redisNowMs, name })
      })
    }),
  )
  return sendAt
}

/**
 * The time a job the bucket gave `atMs` comes back: the end of its cell of the grid of `size` intervals (Redis ms,
 * the same for every scanner), so the jobs given times in one cell come back together, in one claim. Less than
 * HELD_GROUP_MS later, and no more jobs than the burst: the sends' bucket lets the whole group go at once
 * (lua/flow-take.lua), and the rate holds as before.
 */
export function groupedTime(atMs: number, rate: FlowRate): number {
  const cell = groupCellMs(rate)
  if (cell === 0) return atMs
  return Math.ceil(Math.ceil(atMs / cell) * cell)
}

/** The grid's cell (ms) of groupedTime for `rate`, 0 when its jobs come back one at a time. */
export function groupCellMs(rate: FlowRate): number {
  const interval = 1000 / rate.rate
  const size = Math.min(10, rate.burst, Math.floor(HELD_GROUP_MS / interval))
  return size <= 1 ? 0 : size * interval
}
