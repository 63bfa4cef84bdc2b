// The fault that makes a failover lose writes in production: the replicas' link to the primary breaks (a network
// blip) and the primary dies before they are back, so what it acknowledged meanwhile exists nowhere else.
import type { Redis } from 'ioredis'
import { sleep } from './harness'

/**
 * Breaks the link of `replicas` to `primary` for `ms`: they can no longer authenticate to it (a wrong masterauth), and
 * their connections are dropped. Takes over the clients: `primary` is closed here, the replicas by the mend returned,
 * which lets them follow the next primary.
 */
export async function cutReplication(primary: Redis, replicas: Redis[], ms: number): Promise<() => Promise<void>> {
  try {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', 'cut-off')))
    await primary.call('CLIENT', 'KILL', 'TYPE', 'replica')
    await sleep(ms)
  } finally {
    primary.disconnect()
  }
  return async () => {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', '')))
    replicas.forEach((r) => r.disconnect())
  }
}
