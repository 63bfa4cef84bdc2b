// Warns before Redis is full: the scanner reads `INFO memory` now and then (every primary), logs a warning while
// used_memory is above REDIS_MEMORY_WARN_PERCENT of maxmemory, and reports the fullest node, so the scan function
// can emit it as a metric. At 100% with noeviction new jobs are refused (507 StoreFull) while dispatch and cancels
// go on; the warning is the time to add memory or find the producer.
import { defaultLog, type Log } from '../../logger'
import { readMemory, type MemoryReading } from '../../store/memory'
import type { RedisClient } from '../../store/scripts'

export interface MemoryWatchOptions {
  warnPercent: number
  /** How often to read INFO while a scan loop runs. */
  intervalMs?: number
  logger?: Log
}

export class MemoryWatch {
  /** The fullest node at the last reading, or null before the first one (or when INFO is not allowed). */
  latest: MemoryReading | null = null
  private timer: NodeJS.Timeout | undefined
  private failed = false
  private evictionWarned = false

  constructor(
    private readonly redis: RedisClient,
    private readonly options: MemoryWatchOptions,
  ) {}

  /** Reads now, then every interval until stop(). */
  start(): void {
    if (this.timer) return
    void this.check()
    this.timer = setInterval(() => void this.check(), this.options.intervalMs ?? 10_000)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private get logger(): Log {
    return this.options.logger ?? defaultLog()
  }

  async check(): Promise<MemoryReading | null> {
    let readings: MemoryReading[]
    try {
      readings = await readMemory(this.redis)
      this.failed = false
    } catch (e) {
      // Redis away (the loop reports that itself), or INFO refused by an ACL: the queue works on without the warning.
      if (!this.failed) this.logger.warn('redis memory could not be read', { error: String(e) })
      this.failed = true
      return null
    }
    const fullest = readings.reduce((a, b) => ((b.percent ?? -1) > (a.percent ?? -1) ? b : a))
    this.latest = fullest
    for (const r of readings) {
      if (r.maxBytes > 0 && r.policy !== 'noeviction' && !this.evictionWarned) {
        // Any other policy makes Redis delete keys at maxmemory: jobs would vanish without an error.
        this.evictionWarned = true
        this.logger.error('redis maxmemory-policy evicts keys: set it to noeviction, or jobs can be lost', {
          node: r.node,
          policy: r.policy,
        })
      }
      if (r.percent !== null && r.percent >= this.options.warnPercent) {
        this.logger.warn(
          'redis memory above the warning threshold: at maxmemory new jobs are refused (507 StoreFull)',
          {
            node: r.node,
            usedBytes: r.usedBytes,
            maxBytes: r.maxBytes,
            percent: r.percent,
            warnPercent: this.options.warnPercent,
            policy: r.policy,
          },
        )
      }
    }
    return fullest
  }
}
