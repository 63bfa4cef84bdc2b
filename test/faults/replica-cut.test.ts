// The replica link cut the failover cases rely on to lose writes (test/support/replica-cut.ts). Cut strictly, as
// those cases do, a cut that failed or did not hold fails loudly; cut leniently, as the chaos nemesis does, the same
// failure passes in silence, and a "loses what the primary acknowledged while its replicas were cut off" case would
// have run as a plain kill.
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { eventually } from '../support/eventually'
import { cutReplicas, ReplicaCutError } from '../support/replica-cut'

const started: LocalRedis[] = []
const clients: Redis[] = []
afterAll(async () => {
  for (const c of clients) c.disconnect()
  await Promise.all(started.map((r) => r.stop()))
})

async function server(...extraArgs: string[]): Promise<LocalRedis> {
  const r = await startRedis({ extraArgs })
  started.push(r)
  return r
}

function client(port: number): Redis {
  const c = new Redis({ host: '127.0.0.1', port })
  clients.push(c)
  return c
}

const linkOf = async (c: Redis) => /^master_link_status:(\w+)/m.exec(String(await c.info('replication')))?.[1]

/** A primary and a replica of it whose link is up. */
async function pair(...replicaArgs: string[]) {
  const primary = await server()
  const replica = await server('--replicaof', '127.0.0.1', String(primary.port), ...replicaArgs)
  const replicaClient = client(replica.port)
  await eventually(async () => (await linkOf(replicaClient)) === 'up', 10_000)
  return { primary, replica, replicaClient }
}

describe('cutReplicas', () => {
  it('cuts a replica off its primary until the mend, strictly, and the replica follows again after it', async () => {
    // prepare
    const { primary, replica, replicaClient } = await pair()
    // act
    const mend = await cutReplicas(primary.port, [replica.port], 300, { strict: true })
    const during = await linkOf(replicaClient)
    await mend()
    // assess
    expect(during).toBe('down')
    await eventually(async () => (await linkOf(replicaClient)) === 'up', 10_000)
  })

  it('fails a strict cut whose replica refuses the masterauth change, where a lenient one passes without cutting', async () => {
    // prepare: a replica that has no CONFIG command (as on a managed service)
    const { primary, replica, replicaClient } = await pair('--rename-command', 'CONFIG', '')
    // act
    const strict = await cutReplicas(primary.port, [replica.port], 50, { strict: true }).catch((e) => e)
    const mendLenient = await cutReplicas(primary.port, [replica.port], 50)
    await mendLenient()
    // assess: the strict cut threw; the lenient one returned, and the replica is linked again within Redis's
    // reconnect (its masterauth was never changed): what a failover case would then have killed is a plain primary
    expect(strict).toBeInstanceOf(Error)
    expect(String(strict)).toMatch(/CONFIG/i)
    await eventually(async () => (await linkOf(replicaClient)) === 'up', 10_000)
  })

  it("fails a strict cut aimed at a node that is not the primary's replica (its link was never there to cut)", async () => {
    // prepare: a standalone server given as the replica
    const primary = await server()
    const stranger = await server()
    // act
    const error = await cutReplicas(primary.port, [stranger.port], 50, { strict: true }).catch((e) => e)
    // assess
    expect(error).toBeInstanceOf(ReplicaCutError)
    expect(error.message).toContain(`port ${stranger.port}`)
  })
})
