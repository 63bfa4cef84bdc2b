// Run now: a pending job made due at once (promote), or every pending job due before a time, shard by shard, in
// bounded script runs (lua/promote.lua, lua/promote-due.lua). The job stays the same job (payload, creation time,
// version); only its due time moves, to Redis's clock, in one script with the checks: a job a scanner holds is a 409,
// as for a replace or a cancel.
import { type ScriptErrorCode, scriptError, ValidationError } from '../errors'
import type { JobLocation, Keyspace, ShardKeys } from './keys'
import { writeScript } from './redis/write'
import { jobSideKeys } from './scripts/job-side-keys'
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

/** A position in the walk: shard, bucket, and in that bucket the due time and id of the last job read (0, ""). */
interface Position {
  shard: number
  bucket: number
  from: number
  after: string
}

/** When promote moves a job: now (unless due already), a delay after Redis's clock, or a time. */
export type MoveTo = { now: true } | { delayMs: number } | { atMs: number }

/** lua/promote.lua's success codes, the first element of its array reply (a number reply is a ScriptErrorCode). */
export enum PromoteStatus {
  /** { 1, dueMs, previousDueMs }: the job was moved. */
  Moved = 1,
  /** { 2, dueMs }: "now" asked of a job due already, unchanged. */
  DueAlready = 2,
}

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
  at: { bucket: number; from: number; after: string },
  count: number,
  o: { beforeMs: number; queue: string },
): ScriptCall<[number, number, number | string, string]> {
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
      from: at.from,
      maxJobs: JOBS_PER_RUN,
      maxBytes: BYTES_PER_RUN,
      firstBucketNo: at.bucket,
      wake: shard.wakeChannel,
      after: at.after,
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
    if (code === PromoteStatus.Moved && unconfirmed) throw unconfirmed
    return { id, runAtMs: now, previousRunAtMs: before ?? now }
  }

  /** Pending jobs due before `beforeMs` made due now, shard after shard; resumable from the answer's cursor. */
  async promoteDue(options: PromoteDueOptions): Promise<PromoteDueResult> {
    await this.store.ready()
    const { shards, buckets } = this.keys.options
    let at: Position | null = options.cursor
      ? decodeCursor(options.cursor, shards, buckets)
      : { shard: 0, bucket: 0, from: 0, after: '' }
    let promoted = 0
    for (let runs = 0; at && runs < (options.maxRuns ?? Infinity); runs++) {
      const shard = this.keys.shards[at.shard]!
      const count = Math.min(BUCKETS_PER_RUN, buckets - at.bucket)
      const call = promoteDueCall(shard, at, count, { beforeMs: options.beforeMs, queue: options.queue ?? '' })
      const { reply, unconfirmed } = await this.write(shard, call)
      const [moved, stoppedAt, from, after] = reply
      if (moved > 0 && unconfirmed) throw unconfirmed
      promoted += Number(moved)
      at = next(at, Number(stoppedAt), count, { from: Number(from), after: String(after) }, shards, buckets)
    }
    return { promoted, cursor: at ? encodeCursor(at) : null }
  }

  private write<R>(shard: ShardKeys, call: ScriptCall<R>) {
    return writeScript(this.store.redis, this.store.replication, shard, call)
  }
}

function next(
  at: Position,
  stoppedAt: number,
  count: number,
  inBucket: { from: number; after: string },
  shards: number,
  buckets: number,
): Position | null {
  if (stoppedAt < count) return { shard: at.shard, bucket: at.bucket + stoppedAt, ...inBucket }
  const bucket = at.bucket + count
  if (bucket < buckets) return { shard: at.shard, bucket, from: 0, after: '' }
  return at.shard + 1 < shards ? { shard: at.shard + 1, bucket: 0, from: 0, after: '' } : null
}

/** "shard.bucket.0" at a bucket's start; "shard.bucket.from.after" inside one (the id last: ids may hold dots). */
function encodeCursor(at: Position): string {
  return `${at.shard}.${at.bucket}.${at.from}${at.from ? `.${at.after}` : ''}`
}

function decodeCursor(cursor: string, shards: number, buckets: number): Position {
  const m = /^(\d{1,4})\.(\d{1,7})\.(\d{1,15})(?:\.([A-Za-z0-9_.:@+-]{1,128}))?$/.exec(cursor)
  const [shard, bucket] = m ? [Number(m[1]), Number(m[2])] : [-1, -1]
  if (shard < 0 || shard >= shards || bucket < 0 || bucket >= buckets) {
    throw new ValidationError([{ path: 'cursor', message: 'is not a cursor of an earlier run-due answer' }])
  }
  // Without an id (an older cursor's third part was a count): the bucket's start, whose jobs moved are due already.
  return m![4] === undefined
    ? { shard, bucket, from: 0, after: '' }
    : { shard, bucket, from: Number(m![3]), after: m![4] }
}
