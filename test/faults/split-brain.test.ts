// Scenario: two primaries for a while, as after a failover the old primary has not heard of yet (Sentinel promoted a
// replica because the old one missed its pings on a loaded host; it reconfigures the old one only once it hears from
// it). A scanner still connected to the old primary must send nothing from its copy: the new primary, where the API
// now writes, has cancelled one of the jobs, and sends the others itself. The chaos run met this as occurrences sent
// after an acknowledged pause or delete, and sent twice, during a second promotion.
//
// The split is made by hand, the way Sentinel makes it (REPLICAOF NO ONE on a replica, the other replica moved to it),
// leaving the old primary running with no replica: no sentinel, so nothing demotes it while the test looks. Default
// settings throughout (REDIS_WAIT_REPLICAS unset: auto; no min-replicas-to-write on the servers).
import { sleep } from '../../devkit/sleep'
import { DeleteQueueCommand } from '@aws-sdk/client-sqs'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { loadConfig } from '../../src/config'
import { createScanner } from '../../src/scan/create-scanner'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { createEngine, type Engine } from '../../src/store/engine'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'
import { stageEnv } from './harness'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined)
})

async function node(extraArgs: string[] = []): Promise<LocalRedis> {
  const server = await startRedis({ extraArgs })
  cleanup.push(() => server.stop())
  return server
}

async function onlineReplicas(port: number, n: number): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1' })
  try {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(50)) {
      const info = await client.info('replication')
      if (info.split('\n').filter((l) => /^slave\d+:.*state=online/.test(l)).length >= n) return
    }
    throw new Error(`127.0.0.1:${port} did not get ${n} replica(s) online`)
  } finally {
    client.disconnect()
  }
}

function engineOn(env: Record<string, string>, server: LocalRedis): Engine {
  const engine = createEngine(loadConfig({ ...env, REDIS_URL: server.url }), { commandTimeoutMs: 3_000 })
  engine.redis.on('error', () => undefined)
  cleanup.push(() => engine.close())
  return engine
}

/** Runs the deployed scanner wiring (createScanner, default settings) on `engine` for `ms`. */
async function scanFor(engine: Engine, ms: number): Promise<void> {
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 4 })
  const { scanner, close } = createScanner(engine, sqs, { subscribe: false })
  try {
    await scanner.run(Date.now() + ms)
  } finally {
    await close()
    sqs.destroy()
  }
}

describe('a primary that has been replaced but still runs (split brain), default settings', () => {
  it('sends nothing from the old primary: no job cancelled on the new one, none twice', async () => {
    // prepare: a primary with two replicas; two jobs due now, written (and replicated) before the split
    const sqs = sqsClient()
    const queue = await createQueue(sqs, 'split')
    cleanup.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: queue.url })))
    const old = await node()
    const a = await node(['--replicaof', '127.0.0.1', String(old.port)])
    const b = await node(['--replicaof', '127.0.0.1', String(old.port)])
    await onlineReplicas(old.port, 2)
    const env = stageEnv('split', queue.url, inject('sqsEndpoint'))
    const before = engineOn(env, old)
    // The scanner on the old primary has claimed there while it had its replicas (and knows it had them).
    await scanFor(before, 300)
    await before.store.enqueue({ id: 'kept', queue: 'orders', payloadJson: '{}', due: { delayMs: 0 } })
    await before.store.enqueue({ id: 'cancelled', queue: 'orders', payloadJson: '{}', due: { delayMs: 0 } })
    // Both replicas have them before the split: an enqueue waits for one replica (the default), and the one promoted
    // below must not be the other (a loaded run promoted a replica that had not yet received "cancelled").
    const oldCtl = new Redis(old.port)
    cleanup.push(async () => oldCtl.disconnect())
    expect(await oldCtl.call('WAIT', '2', '10000')).toBe(2)

    // act: replica `a` is promoted and `b` follows it, as Sentinel does; the old primary runs on, alone. The API
    // (on the new primary) cancels one job, and the scanner still on the old primary runs.
    const ctlA = new Redis(a.port)
    const ctlB = new Redis(b.port)
    cleanup.push(async () => {
      ctlA.disconnect()
      ctlB.disconnect()
    })
    await ctlA.replicaof('NO', 'ONE')
    await ctlB.replicaof('127.0.0.1', a.port)
    await onlineReplicas(a.port, 1)
    const after = engineOn(env, a)
    await after.store.cancel('cancelled')
    await scanFor(before, 3_000)
    const fromOld = countIds(await receiveAll(sqs, queue.url))
    // ...then the scanner of the new primary.
    await scanFor(after, 3_000)
    const fromNew = countIds(await receiveAll(sqs, queue.url))

    // assess: the old primary's copy sent nothing; the new one sent the job it kept, once, and not the cancelled one
    expect(Object.fromEntries(fromOld)).toEqual({})
    expect(Object.fromEntries(fromNew)).toEqual({ kept: 1 })
  }, 60_000)
})
