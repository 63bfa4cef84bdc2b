// A replica link cut, for the Redis faults of the chaos run and the failover cases (Sentinel or Cluster): the replicas
// can no longer authenticate to their primary (a wrong masterauth) and their connections are dropped, for a while,
// then mended. What makes a failover lose writes in production: the link breaks (a network blip) and the primary
// dies before the replicas are back, so what it acknowledged meanwhile exists nowhere else.
// The chaos nemesis cuts leniently (a node it cannot reach is a fault of the run, not of the cut). The failover tests
// cut strictly: a cut that did not happen would let a "loses writes" variant pass as the plain kill it then is.
import { sleep } from '../../devkit/sleep'
import { Redis } from 'ioredis'

export interface CutOptions {
  /**
   * Throw when a step of the cut fails or, at its end, a replica still reports its link to the primary up
   * (`master_link_status`): the cut is then known to have held until the kill. Default false (errors ignored).
   */
  strict?: boolean
}

export class ReplicaCutError extends Error {
  override name = 'ReplicaCutError'
}

/** The replicas lose their link to the primary (a wrong masterauth, their connections killed) for `ms`. */
export async function cutReplicas(
  primaryPort: number,
  replicaPorts: number[],
  ms: number,
  { strict = false }: CutOptions = {},
): Promise<() => Promise<void>> {
  const replicas = replicaPorts.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }))
  const primary = new Redis({ host: '127.0.0.1', port: primaryPort, lazyConnect: true })
  for (const c of [...replicas, primary]) c.on('error', () => undefined)
  const lenient = <T>(step: Promise<T>) => (strict ? step : step.catch(() => undefined))
  const mend = async () => {
    await Promise.all(replicas.map((r) => lenient(r.config('SET', 'masterauth', ''))))
    for (const r of replicas) r.disconnect()
  }
  try {
    await Promise.all(replicas.map((r) => lenient(r.config('SET', 'masterauth', 'cut-off'))))
    await lenient(primary.call('CLIENT', 'KILL', 'TYPE', 'replica'))
    await sleep(ms)
    if (strict) await expectCut(replicas, replicaPorts, primaryPort)
  } catch (e) {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', '').catch(() => undefined)))
    for (const r of replicas) r.disconnect()
    throw e
  } finally {
    primary.disconnect()
  }
  return mend
}

/** Every replica reports its link to the primary down (read just before the kill: afterwards it would be anyway). */
async function expectCut(replicas: Redis[], ports: number[], primaryPort: number): Promise<void> {
  for (const [i, r] of replicas.entries()) {
    const info = String(await r.info('replication'))
    const link = /^master_link_status:(\w+)/m.exec(info)?.[1]
    if (link !== 'down') {
      throw new ReplicaCutError(
        `the replica on port ${ports[i]} reports master_link_status:${link ?? '(none)'} after its cut from the primary on port ${primaryPort}: the cut did not hold`,
      )
    }
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
  options: CutOptions = {},
): Promise<void> {
  const mend = cutMs > 0 ? await cutReplicas(primaryPort, replicaPorts, cutMs, options) : undefined
  await kill()
  await mend?.()
}
