// Settling one claim's leases after its sends: ack what SQS took, release what it refused (for a retry with backoff,
// or to the dead set once the job used up its attempts).
import type { ShardKeys } from '../../store/keys'
import type { AckHold } from './ack-hold'
import type { RefusedJob, SentJob } from '../dispatch/dispatcher'
import type { Leases } from './leases'
import type { ClaimedJob } from './claimed-job'

export interface SettleHooks {
  /** Jobs of `queue` released for a retry, and moved to the dead set, by one release call. */
  released(queue: string, released: number, dead: number): void
  /** Jobs that went to the dead set (their FIFO groups stop waiting for them). */
  died?(ids: string[]): void
  redisError(): void
}

/**
 * If Redis is away, retry for a while; if it stays away the leases expire and the jobs are claimed again: a
 * duplicate send, never a lost job. Resolves to the earliest retry time (local ms) of the jobs released for one, or
 * null.
 */
export async function settleClaim(
  leases: Leases,
  /** Who acks: the leases themselves, or an AckHold that sends the ack with the shard's next claim. */
  acks: Pick<Leases, 'ack'> | AckHold,
  shard: ShardKeys,
  sent: ClaimedJob[],
  refused: RefusedJob[],
  hooks: SettleHooks,
): Promise<number | null> {
  let retryAt: number | null = null
  for (let attempt = 0; ; attempt++) {
    try {
      if (sent.length) await acks.ack(shard, sent)
      sent = []
      // One release per target queue (refusals are rare): the metrics count released and dead jobs per queue.
      while (refused.length) {
        const queue = refused[0]!.job.queue
        const items = releaseItems(
          leases,
          refused.filter((r) => r.job.queue === queue),
        )
        const r = await leases.release(shard, items)
        refused = refused.filter((r) => r.job.queue !== queue)
        hooks.released(queue, r.released, r.dead)
        if (r.deadIds?.length) hooks.died?.(r.deadIds)
        // From the retry times as released (a figure that was not finite replaced), never NaN.
        if (r.released && r.soonestRetryAtMs !== undefined) {
          retryAt = Math.min(retryAt ?? Infinity, leases.localMs(r.soonestRetryAtMs, shard.shard))
        }
      }
      return retryAt
    } catch (e) {
      hooks.redisError()
      if (attempt >= 8) throw e
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 3_000)))
    }
  }
}

function releaseItems(leases: Leases, batch: RefusedJob[]) {
  return batch.map(({ job, error, jobsFault, maybeSent, after }) => ({
    id: job.id,
    token: job.token,
    attempt: job.attempt,
    error,
    jobsFault,
    maybeSent,
    retryAtMs: leases.retryAt(job, after),
  }))
}

/** A dispatch's outcome, per shard number: its jobs' leases are settled shard by shard. */
export function byShard(sent: readonly SentJob[], refused: readonly RefusedJob[]) {
  const shards = new Map<number, { sent: ClaimedJob[]; refused: RefusedJob[] }>()
  const of = (n: number) => shards.get(n) ?? shards.set(n, { sent: [], refused: [] }).get(n)!
  for (const s of sent) of(s.job.shard).sent.push(s.job)
  for (const r of refused) of(r.job.shard).refused.push(r)
  return shards
}
