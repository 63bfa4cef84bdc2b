// Run now: a pending job made due at once (promote), or every pending job due before a time, shard by shard, in
// bounded script runs (lua/promote.lua, lua/promote-due.lua). The job stays the same job (payload, creation time,
// version); only its due time moves, to Redis's clock, in one script with the checks: a job a scanner holds is a 409,
// as for a replace or a cancel.
import { ValidationError } from '../errors'
import { scriptError } from './script-errors'
import type { Keyspace, ShardKeys } from './keys'
import { writeScript } from './redis/write'
import type { ScriptCall } from './scripts'
import { decodePromote, type MoveTo, promoteCall, PromoteStatus } from './scripts/promote'
import { decodePromoteDue, promoteDueCall } from './scripts/promote-due'
import type { JobStore } from './job-store'

export type { MoveTo }

/** Buckets one promote-due run looks at (one ZMSCORE over the index for all of them). */
export const BUCKETS_PER_RUN = 256

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
    const moved = decodePromote(reply)
    if (moved.status === 'refused') throw scriptError(moved.code, id)
    if (moved.status === PromoteStatus.Moved && unconfirmed) throw unconfirmed
    return { id, runAtMs: moved.dueMs, previousRunAtMs: moved.previousDueMs }
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
      const run = decodePromoteDue(reply)
      if (run.promoted > 0 && unconfirmed) throw unconfirmed
      promoted += run.promoted
      at = next(at, run.stoppedAt, count, { from: run.from, after: run.after }, shards, buckets)
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
