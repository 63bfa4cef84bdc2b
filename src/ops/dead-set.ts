// The scanner's dead set: jobs SQS refused on every dispatch attempt. Never dropped: listed here, revived on demand.
//
// Listing reads record heads first (lua/record-heads.lua: queue, times, group, no payload), filters and sorts
// them, and only then reads the payloads of the jobs it returns: a listing never reads a payload it does not show,
// and the dashboard, which shows a short preview, reads none.
import { scriptError, ScriptErrorCode } from '../store/script-errors'
import type { Keyspace, ShardKeys } from '../store/keys'
import { verifyLayout } from '../store/layout'
import { decodeDispatchError } from '../store/job-state'
import { decodeRecord, RECORD_HEADER_LINES, type StoredJob } from '../store/record'
import { previewText, readRecordHeads, type RecordHeadCache } from '../store/record-heads'
import { decodeRevive, reviveCall } from '../store/scripts/revive'
import { runScript, type ScriptedClient } from '../store/scripts'
import type { DispatchError } from '../store/job-store'
import { guard } from '../store/redis/redis-errors'
import { isoTime } from '../shared/iso-time'

export interface DeadJob {
  id: string
  queue: string
  payload: unknown
  groupId?: string
  createdAt: string
  diedAt: string
  lastError?: DispatchError
}

/** A dead job with the first bytes of its payload only: what the dashboard lists. */
export interface DeadJobHead extends Omit<DeadJob, 'payload'> {
  /** The payload's JSON text, cut after `previewBytes` bytes ("…" then). */
  payloadPreview: string
  /** The payload's whole size in bytes. */
  payloadBytes: number
}

export interface DeadListOptions {
  limit?: number
  /** Only jobs of this target queue. */
  queue?: string
}

/** Dead-set entries read per round trip while looking for a queue's jobs. */
const PAGE = 100

interface Found {
  shard: ShardKeys
  id: string
  diedMs: number
  job: StoredJob
  payloadBytes: number
}

export class DeadSet {
  constructor(
    readonly redis: ScriptedClient,
    readonly keys: Keyspace,
  ) {}

  /** The most recently dead jobs first, across shards; optionally of one target queue only. */
  async list(options: DeadListOptions = {}): Promise<DeadJob[]> {
    const found = await this.find(options, 0, undefined)
    // Payloads only now, only for the jobs listed.
    const records = await guard(Promise.all(found.map((f) => this.redis.hget(f.shard.jobs, f.id))))
    const errors = await this.errorsOf(found)
    return found.flatMap((f, i) => {
      const record = records[i]
      if (!record) return [] // revived or deleted meanwhile
      const job = decodeRecord(record)
      if (options.queue && job.queue !== options.queue) return []
      return [view(f, job, { payload: JSON.parse(job.payloadJson) }, errors[i])]
    })
  }

  /**
   * As list, with each payload cut after `previewBytes` (its whole size given): no payload is read whole. With a
   * cache, a record already read by an earlier call is not read again.
   */
  async heads(options: DeadListOptions & { previewBytes: number }, cache?: RecordHeadCache): Promise<DeadJobHead[]> {
    const found = await this.find(options, options.previewBytes, cache)
    const errors = await this.errorsOf(found)
    return found.map((f, i) => {
      const payloadPreview = previewText(f.job.payloadJson, f.payloadBytes, options.previewBytes)
      return view(f, f.job, { payloadPreview, payloadBytes: f.payloadBytes }, errors[i])
    })
  }

  /** Schedule a dead job again, unchanged, `delayMs` from now (Redis's clock). Returns its new due time. */
  async revive(id: string, delayMs = 0): Promise<number> {
    await guard(verifyLayout(this.redis, this.keys))
    const due = decodeRevive(await guard(runScript(this.redis, reviveCall(this.keys.locate(id), id, delayMs))))
    if (due === null) throw scriptError(ScriptErrorCode.JobNotFound, id)
    return due
  }

  /** The `limit` most recently dead jobs (of `queue`), by their record heads: payloads up to `previewBytes`. */
  private async find(options: DeadListOptions, previewBytes: number, cache: RecordHeadCache | undefined) {
    await guard(verifyLayout(this.redis, this.keys))
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
    const perShard = await guard(
      Promise.all(
        this.keys.shards.map((shard) => this.findInShard(shard, limit, { queue: options.queue, previewBytes, cache })),
      ),
    )
    return perShard
      .flat()
      .sort((a, b) => b.diedMs - a.diedMs)
      .slice(0, limit)
  }

  private async findInShard(
    shard: ShardKeys,
    limit: number,
    { queue, previewBytes, cache }: { queue?: string; previewBytes: number; cache?: RecordHeadCache },
  ): Promise<Found[]> {
    // A queue filter may skip many entries: look at more than asked for, bounded.
    const scan = queue ? Math.min(limit * 10, 10_000) : limit
    const found: Found[] = []
    const seen = new Set<string>()
    for (let start = 0; start < scan && found.length < limit; start += PAGE) {
      const count = Math.min(PAGE, scan - start)
      const flat = await this.redis.zrevrange(shard.dead, start, start + count - 1, 'WITHSCORES')
      const ids = flat.filter((_, i) => i % 2 === 0)
      const options = { headerLines: RECORD_HEADER_LINES, previewBytes }
      const heads = cache
        ? await cache.read(
            this.redis,
            shard.jobs,
            ids.map((id, i) => ({ id, score: flat[i * 2 + 1]! })),
            options,
          )
        : await readRecordHeads(this.redis, shard.jobs, ids, options)
      ids.forEach((id, i) => {
        const head = heads[i]
        if (!head || seen.has(id)) return // revived meanwhile; or seen on the page before (the set moved)
        seen.add(id)
        const job = decodeRecord(head.head)
        if (queue && job.queue !== queue) return
        found.push({ shard, id, diedMs: Number(flat[i * 2 + 1]), job, payloadBytes: head.payloadBytes })
      })
      if (ids.length < count) break
    }
    return found.slice(0, limit)
  }

  private async errorsOf(found: readonly Found[]): Promise<(string | null)[]> {
    return guard(Promise.all(found.map((f) => this.redis.hget(f.shard.errors, f.id))))
  }
}

/** The listed form: the fields in the order the CLI has always printed them, the payload (or its preview) third. */
function view<P extends object>(f: Found, job: StoredJob, payload: P, error: string | null | undefined) {
  const e = error ? decodeDispatchError(error) : null
  return {
    id: f.id,
    queue: job.queue,
    ...payload,
    ...(job.groupId ? { groupId: job.groupId } : {}),
    createdAt: isoTime(job.createdAtMs),
    diedAt: isoTime(f.diedMs),
    ...(e ? { lastError: { attempts: e.attempts, at: isoTime(e.at), message: e.message } } : {}),
  }
}
