// On-demand scan mode: the scanner-alive marker. While a scan run goes on it keeps its name in `<shard>:scanner`
// on every shard, with an expiry, so the enqueue script of any shard (lua/enqueue.lua) can tell in its own slot
// whether a scanner will see its job. The marker is the set of the runs alive (lua/scanner-alive.lua), and a run
// removes only its own name (lua/scanner-retire.lua): a run that ends never takes the marker from another run that
// is still scanning. A run that dies leaves a name that lapses within ALIVE_TTL_MS: after that, enqueues start a
// new one again.
import type { Keyspace } from '../../store/keys'
import { scannerAliveCall } from '../../store/scripts/scanner-alive'
import { decodeScannerRetire, scannerRetireCall, ScannerRetireStatus } from '../../store/scripts/scanner-retire'
import { type RedisClient, runScript, withScripts } from '../../store/scripts'

/** Expiry of a run's name. A live run refreshes it every ALIVE_REFRESH_MS, well before it lapses. */
export const ALIVE_TTL_MS = 5_000
export const ALIVE_REFRESH_MS = 1_000

export class Presence {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    /** This run's name in the marker (the invocation's request id). */
    private readonly owner: string,
    private readonly ttlMs = ALIVE_TTL_MS,
    /**
     * The start guard's token this run was started under (an enqueue's start), or null: the run gives that guard back
     * as it ends, in case the process that started it could not (src/on-demand/start/scan-starter.ts).
     */
    private readonly startToken: string | null = null,
  ) {}

  /** Adds (or refreshes) this run's name on every shard. */
  async markAlive(): Promise<void> {
    // One script per shard, not one for all: on Redis Cluster the shards live in different slots.
    const redis = withScripts(this.redis)
    await Promise.all(this.keys.shards.map((s) => runScript(redis, scannerAliveCall(s, this.owner, this.ttlMs))))
  }

  refresh(): Promise<void> {
    return this.markAlive()
  }

  /** Whether some scanner (this one or another) is marked alive now. */
  async anyAlive(): Promise<boolean> {
    return (await this.redis.exists(this.keys.shards[0]!.scannerAlive)) === 1
  }

  /**
   * Takes this run's name off every shard, but only where nothing is due within `horizonMs` (0: whatever is due),
   * each shard in one step with its look at the due times, so an enqueue either is seen or sees no marker. Returns
   * null when the name is off every shard, else how long until the earliest due time that kept it on a shard (the
   * name is then put back on every shard: the run stays).
   */
  async retire(horizonMs = 0): Promise<number | null> {
    const redis = withScripts(this.redis)
    const replies = await Promise.all(
      this.keys.shards.map((s) =>
        runScript(redis, scannerRetireCall(s, { owner: this.owner, horizonMs, startToken: this.startToken })),
      ),
    )
    const kept = replies
      .map(decodeScannerRetire)
      .flatMap((r) => (r.status === ScannerRetireStatus.Kept ? [r.untilDueMs] : []))
    if (kept.length === 0) return null
    // Some shards had work due soon: the run stays, so it is alive on all of them again.
    if (kept.length < replies.length) await this.markAlive()
    return Math.min(...kept)
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
