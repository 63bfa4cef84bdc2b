// The scanner's dead set: jobs SQS refused on every dispatch attempt. Never dropped: listed here, revived on demand.
import { scriptError, ScriptErrorCode } from '../errors'
import type { Keyspace } from '../store/keys'
import { verifyLayout } from '../store/layout'
import { decodeDispatchError } from '../store/job-state'
import { decodeRecord } from '../store/record'
import { reviveCall } from '../store/script-calls'
import { runScript, type ScriptedClient } from '../store/scripts'
import type { DispatchError } from '../store/job-store'
import { guard } from '../store/redis-errors'

export interface DeadJob {
  id: string
  queue: string
  payload: unknown
  groupId?: string
  createdAt: string
  diedAt: string
  lastError?: DispatchError
}

export class DeadSet {
  constructor(
    readonly redis: ScriptedClient,
    readonly keys: Keyspace,
  ) {}

  /** The most recently dead jobs first, across shards; optionally of one target queue only. */
  async list(options: { limit?: number; queue?: string } = {}): Promise<DeadJob[]> {
    await guard(verifyLayout(this.redis, this.keys))
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
    const perShard = await guard(
      Promise.all(
        this.keys.shards.map(async (shard) => {
          // A queue filter may skip many entries: read more than asked for, bounded.
          const scan = options.queue ? Math.min(limit * 10, 10_000) : limit
          const flat = await this.redis.zrevrange(shard.dead, 0, scan - 1, 'WITHSCORES')
          const ids = flat.filter((_, i) => i % 2 === 0)
          if (ids.length === 0) return []
          const [records, errors] = await Promise.all([
            this.redis.hmget(shard.jobs, ...ids),
            this.redis.hmget(shard.errors, ...ids),
          ])
          return ids.flatMap((id, i) => {
            const record = records[i]
            if (!record) return []
            const job = decodeRecord(record)
            const error = errors[i] ? decodeDispatchError(errors[i]!) : null
            const dead: DeadJob = {
              id,
              queue: job.queue,
              payload: JSON.parse(job.payloadJson),
              ...(job.groupId ? { groupId: job.groupId } : {}),
              createdAt: new Date(job.createdAtMs).toISOString(),
              diedAt: new Date(Number(flat[i * 2 + 1])).toISOString(),
              ...(error
                ? {
                    lastError: {
                      attempts: error.attempts,
                      at: new Date(error.at).toISOString(),
                      message: error.message,
                    },
                  }
                : {}),
            }
            return [dead]
          })
        }),
      ),
    )
    return perShard
      .flat()
      .filter((j) => !options.queue || j.queue === options.queue)
      .sort((a, b) => b.diedAt.localeCompare(a.diedAt))
      .slice(0, limit)
  }

  /** Schedule a dead job again, unchanged, `delayMs` from now (Redis's clock). Returns its new due time. */
  async revive(id: string, delayMs = 0): Promise<number> {
    await guard(verifyLayout(this.redis, this.keys))
    const due = Number(await guard(runScript(this.redis, reviveCall(this.keys.locate(id), id, delayMs))))
    if (due === 0) throw scriptError(ScriptErrorCode.JobNotFound, id)
    return due
  }
}
