// A replica link cut, for the Redis faults of the chaos run and the failover cases (Sentinel or Cluster): the replicas
// can no longer authenticate to their primary (a wrong masterauth) and their connections are dropped, for a while,
// then mended. What makes a failover lose writes in production: the link breaks (a network blip) and the primary
// dies before the replicas are back, so what it acknowledged meanwhile exists nowhere else.
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

/**
 * Runs `kill` (of the primary on `primaryPort`) after cutting its replicas off for `cutMs` (none when 0), and mends
 * the cut once the kill has run, so the replicas can follow the next primary.
 */
export async function killAfterCut(
  primaryPort: number,
  replicaPorts: number[],
  cutMs: number,
  kill: () => unknown,
): Promise<void> {
  const mend = cutMs > 0 ? await cutReplicas(primaryPort, replicaPorts, cutMs) : undefined
  await kill()
  await mend?.()
}
