// What Sentinel did during a fault, as it announces it on its Pub/Sub channels (+sdown, +odown, +switch-master, ...):
// a failover case that fails can then tell one promotion from two, and which node each one chose.
import { Redis } from 'ioredis'

export interface SentinelEvents {
  /** `+<ms since start> <channel> <message>` per event, in the order the sentinel published them. */
  readonly lines: string[]
  /** How many times the primary changed (`+switch-master`). */
  switches(): number
  /** Adds a line of the test's own (e.g. "primary killed") among the events. */
  mark(what: string): void
  stop(): void
}

/**
 * Subscribes to every event channel of the sentinels at `addresses` ("host:port"); each line names its sentinel by
 * its index (s0, s1, ...). `switches()` counts the first sentinel's.
 */
export async function watchSentinels(addresses: string[]): Promise<SentinelEvents> {
  const started = Date.now()
  const lines: string[] = []
  const clients = await Promise.all(
    addresses.map(async (address, i) => {
      const [host, port] = address.split(':')
      const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1 })
      client.on('error', () => undefined)
      client.on('pmessage', (_pattern: string, channel: string, message: string) => {
        // the noisy ones (a sentinel's hello every 2 s) say nothing about the failover
        if (channel !== '__sentinel__:hello') lines.push(`+${Date.now() - started} s${i} ${channel} ${message}`)
      })
      await client.connect()
      await client.psubscribe('*')
      return client
    }),
  )
  return {
    lines,
    switches: () => lines.filter((l) => l.includes(' s0 +switch-master ')).length,
    mark: (what: string) => lines.push(`+${Date.now() - started} test: ${what}`),
    stop: () => {
      for (const c of clients) c.disconnect()
    },
  }
}
