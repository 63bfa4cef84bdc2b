// On-demand scan mode: the scanner-alive marker. While a scanner runs it keeps `<shard>:scanner` set on every
// shard, with an expiry, so the enqueue script of any shard (lua/enqueue.lua) can tell in its own slot whether a
// scanner will see its job. A scanner that dies leaves a marker that expires within ALIVE_TTL_MS: after that,
// enqueues start a new one again.
import type { Keyspace } from '../store/keys'
import type { RedisClient } from '../store/scripts'

/** Expiry of the marker. A live scanner refreshes it every ALIVE_REFRESH_MS, well before it lapses. */
export const ALIVE_TTL_MS = 5_000
export const ALIVE_REFRESH_MS = 1_000

export class Presence {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    /** Written into the marker: which invocation holds it (logs, debugging). */
    private readonly owner: string,
    private readonly ttlMs = ALIVE_TTL_MS,
  ) {}

  /**
   * Sets (or refreshes) the marker on every shard. The start guards stay until retire(): an enqueue that asked for
   * a scanner just before the marker appeared must still find its guards taken (src/store/scan-start.ts).
   */
  async markAlive(): Promise<void> {
    // One command per shard, not a pipeline: on Redis Cluster the shards live in different slots.
    await Promise.all(this.keys.shards.map((s) => this.redis.set(s.scannerAlive, this.owner, 'PX', this.ttlMs)))
  }

  refresh(): Promise<void> {
    return this.markAlive()
  }

  /** Whether some scanner (this one or another) holds the marker now. */
  async anyAlive(): Promise<boolean> {
    return (await this.redis.exists(this.keys.shards[0]!.scannerAlive)) === 1
  }

  /** Removes the marker and the start guards: from now on, an enqueue of a job due soon starts a scanner again. */
  async retire(): Promise<void> {
    await Promise.all(this.keys.shards.flatMap((s) => [this.redis.del(s.scannerAlive), this.redis.del(s.scanStart)]))
  }

  /**
   * How long until anything is due (a scheduled job, an expiring lease, a dispatch retry), on Redis's clock:
   * Infinity when nothing is pending, <= 0 when something is due already.
   */
  async msUntilNextDue(): Promise<number> {
    const heads = await Promise.all(
      this.keys.shards.map(async (s) => {
        const [index, inflight] = await Promise.all([
          this.redis.zrange(s.index, '0', '0', 'WITHSCORES'),
          this.redis.zrange(s.inflight, '0', '0', 'WITHSCORES'),
        ])
        return Math.min(Number(index[1] ?? Infinity), Number(inflight[1] ?? Infinity))
      }),
    )
    const next = Math.min(...heads)
    if (next === Infinity) return Infinity
    const [seconds, micros] = await this.redis.time()
    return next - (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000))
  }
}
