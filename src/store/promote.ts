// Run now: a pending job made due at once (promote), or every pending job due before a time, shard by shard, in
// bounded script runs (lua/promote.lua, lua/promote-due.lua). The job stays the same job (payload, creation time,
// version); only its due time moves, to Redis's clock, in one script with the checks: a job a scanner holds is a 409,
// as for a replace or a cancel.
import { type ScriptErrorCode, scriptError, ValidationError } from '../errors'
import type { JobLocation, Keyspace, ShardKeys } from './keys'
import { writeScript } from './replication'
import { jobSideKeys } from './script-calls'
import type { ScriptCall } from './scripts'
import type { JobStore } from './job-store'

/** Buckets one promote-due run looks at (one ZMSCORE over the index for all of them). */
export const BUCKETS_PER_RUN = 256
/** Jobs one promote-due run reads at most: a run stays well under a millisecond of Redis time per 100 jobs. */
export const JOBS_PER_RUN = 500
/** Record bytes one promote-due run reads at most with a queue filter (each record is read for its queue). */
export const BYTES_PER_RUN = 1_000_000

export interface Promoted {
  id: string
  /** The due time now (Redis's clock). */
  runAtMs: number
  /** The due time before; equal to runAtMs when the job was due already and nothing changed. */
  previousRunAtMs: number
}

export interface PromoteDueOptions {
  /** Jobs due before this (epoch ms, exclusive). */
  beforeMs: number
  /** Only this queue's jobs. */
  queue?: string
  /** Where an earlier call stopped (its `cursor`); null or absent: from the start. */
  cursor?: string | null
  /** Script runs this call makes at most before it answers with a cursor (default: until done). */
  maxRuns?: number
}

export interface PromoteDueResult {
  promoted: number
  /** Where to go on from; null when every shard was walked. */
  cursor: string | null
}

/** A position in the walk: shard, bucket, and jobs of other queues to pass over in that bucket. */
interface Position {
  shard: number
  bucket: number
  skip: number
}

/** When promote moves a job: now (unless due already), a delay after Redis's clock, or a time. */
export type MoveTo = { now: true } | { delayMs: number } | { atMs: number }

export function promoteCall(
  { shard, bucket, bucketNo }: JobLocation,
  id: string,
  to: MoveTo = { now: true },
): ScriptCall<(number | string)[] | number> {
  const [kind, when] = 'delayMs' in to ? ['delay', to.delayMs] : 'atMs' in to ? ['at', to.atMs] : ['now', '']
  return {
    script: 'sdqPromote',
    keys: jobSideKeys({ shard, bucket }),
    args: { id, bucketNo, wake: shard.wakeChannel, kind, when },
  }
}

export function promoteDueCall(
  shard: ShardKeys,
  at: { bucket: number; skip: number },
  count: number,
  o: { beforeMs: number; queue: string },
): ScriptCall<[number, number, number]> {
  return {
    script: 'sdqPromoteDue',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      buckets: Array.from({ length: count }, (_, i) => shard.bucket(at.bucket + i)),
    },
    args: {
      beforeMs: o.beforeMs,
      queue: o.queue,
      skip: at.skip,
      maxJobs: JOBS_PER_RUN,
      maxBytes: BYTES_PER_RUN,
      firstBucketNo: at.bucket,
      wake: shard.wakeChannel,
    },
  }
}

export class Promoter {
  private readonly keys: Keyspace

  constructor(private readonly store: JobStore) {
    this.keys = store.keys
  }

  /**
   * Run now (by default), or move to `to`: only the due time changes. Throws JobNotFoundError (404: also once it was
   * dispatched; it is never created again), JobDispatchingError (409: being sent), JobDeadError (409: revive it).
   */
  async promote(id: string, to: MoveTo = { now: true }): Promise<Promoted> {
    await this.store.ready()
    const location = this.keys.locate(id)
    const { reply, unconfirmed } = await this.write(location.shard, promoteCall(location, id, to))
    if (typeof reply === 'number' || !Array.isArray(reply)) throw scriptError(Number(reply) as ScriptErrorCode, id)
    const [code, now, before] = reply.map(Number) as [number, number, number?]
    if (code === 1 && unconfirmed) throw unconfirmed
    return { id, runAtMs: now, previousRunAtMs: before ?? now }
  }

  /** Pending jobs due before `beforeMs` made due now, shard after shard; resumable from the answer's cursor. */
  async promoteDue(options: PromoteDueOptions): Promise<PromoteDueResult> {
    await this.store.ready()
    const { shards, buckets } = this.keys.options
    let at: Position | null = options.cursor
      ? decodeCursor(options.cursor, shards, buckets)
      : { shard: 0, bucket: 0, skip: 0 }
    let promoted = 0
    for (let runs = 0; at && runs < (options.maxRuns ?? Infinity); runs++) {
      const shard = this.keys.shards[at.shard]!
      const count = Math.min(BUCKETS_PER_RUN, buckets - at.bucket)
      const call = promoteDueCall(shard, at, count, { beforeMs: options.beforeMs, queue: options.queue ?? '' })
      const { reply, unconfirmed } = await this.write(shard, call)
      const [moved, stoppedAt, skip] = reply.map(Number) as [number, number, number]
      if (moved > 0 && unconfirmed) throw unconfirmed
      promoted += moved
      at = next(at, stoppedAt, count, skip, shards, buckets)
    }
    return { promoted, cursor: at ? `${at.shard}.${at.bucket}.${at.skip}` : null }
  }

  private write<R>(shard: ShardKeys, call: ScriptCall<R>) {
    return writeScript(this.store.redis, this.store.replication, shard, call)
  }
}

function next(at: Position, stoppedAt: number, count: number, skip: number, shards: number, buckets: number) {
  if (stoppedAt < count) return { shard: at.shard, bucket: at.bucket + stoppedAt, skip }
  const bucket = at.bucket + count
  if (bucket < buckets) return { shard: at.shard, bucket, skip: 0 }
  return at.shard + 1 < shards ? { shard: at.shard + 1, bucket: 0, skip: 0 } : null
}

function decodeCursor(cursor: string, shards: number, buckets: number): Position {
  const m = /^(\d{1,4})\.(\d{1,7})\.(\d{1,9})$/.exec(cursor)
  const [shard, bucket, skip] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [-1, -1, -1]
  if (shard < 0 || shard >= shards || bucket < 0 || bucket >= buckets) {
    throw new ValidationError([{ path: 'cursor', message: 'is not a cursor of an earlier run-due answer' }])
  }
  return { shard, bucket, skip }
}
