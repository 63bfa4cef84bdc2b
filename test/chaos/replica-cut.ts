// A replica link cut for the chaos run's Redis faults (Sentinel or Cluster): the replicas can no longer authenticate
// to their primary (a wrong masterauth) and their connections are dropped, for a while, then mended.
import { Redis } from 'ioredis'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The replicas lose their link to the primary (a wrong masterauth, their connections killed) for `ms`. */
export async function cutReplicas(
  primaryPort: number,
  replicaPorts: number[],
  ms: number,
): Promise<() => Promise<void>> {
  const replicas = replicaPorts.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }))
  const primary = new Redis({ host: '127.0.0.1', port: primaryPort, lazyConnect: true })
  for (const c of [...replicas, primary]) c.on('error', () => undefined)
  try {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', 'cut-off').catch(() => undefined)))
    await primary.call('CLIENT', 'KILL', 'TYPE', 'replica').catch(() => undefined)
    await sleep(ms)
  } finally {
    primary.disconnect()
  }
  return async () => {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', '').catch(() => undefined)))
    for (const r of replicas) r.disconnect()
  }
}
