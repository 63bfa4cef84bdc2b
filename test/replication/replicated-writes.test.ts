// REDIS_WAIT_REPLICAS: API writes are answered only once a replica confirms them, never a silent success when it
// does not. Real parts: a primary, a replica and three sentinels on loopback; the engine connects through Sentinel.
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSentinelSetup, type LocalSentinelSetup } from '../../local/redis-sentinel'
import { DelayQueue } from '../../src/direct/delay-queue'
import { ReplicationUnconfirmedError } from '../../src/errors'
import { createEngine, type Engine } from '../../src/store/engine'
import { bodyOf, request, testApi, testConfig } from '../api/api-helpers'
import { job, uniquePrefix } from '../support/engine'

let setup: LocalSentinelSetup
/** Gives up on the replica after 200 ms: the refusal tests freeze it and wait no longer than that. */
let engine: Engine
/**
 * Waits up to 10 s for the replica: a healthy replica on a loaded CI machine can take longer than 200 ms to
 * confirm, so success paths and preparation steps use this one (they test confirmation, not the timeout).
 */
let patient: Engine
beforeAll(async () => {
  setup = await startSentinelSetup({ replicas: 1, sentinels: 3 })
  const prefix = uniquePrefix('wait')
  const connectTo = (timeoutMs: number) => {
    const connected = createEngine(
      testConfig({
        KEY_PREFIX: prefix,
        REDIS_URL: '',
        REDIS_SENTINELS: setup.sentinels.join(','),
        REDIS_SENTINEL_MASTER: setup.masterName,
        REDIS_WAIT_REPLICAS: '1',
        REDIS_WAIT_TIMEOUT_MS: String(timeoutMs),
      }),
      { commandTimeoutMs: timeoutMs + 5_000 },
    )
    connected.redis.on('error', () => undefined)
    return connected
  }
  engine = connectTo(200)
  patient = connectTo(10_000)
})
afterAll(async () => {
  // A stopped replica must run again before it can be stopped.
  setup?.replicas.forEach((r) => r.process.kill('SIGCONT'))
  await Promise.all([engine?.close(), patient?.close()])
  await setup?.stop()
})

/** The replica stops acknowledging (SIGSTOP) while `act` runs. */
async function withReplicaFrozen<T>(act: () => Promise<T>): Promise<T> {
  const replica = setup.replicas[0]!.process
  replica.kill('SIGSTOP')
  try {
    return await act()
  } finally {
    replica.kill('SIGCONT')
  }
}

describe('writes confirmed by a replica (REDIS_WAIT_REPLICAS=1)', () => {
  it('answers enqueue, replace and cancel once the replica has them, and the replica holds them', async () => {
    // act
    const created = await patient.store.enqueue(job({ id: 'wait-ok', due: { delayMs: 60_000 } }))
    const replaced = await patient.store.upsert(job({ id: 'wait-ok', due: { delayMs: 90_000 } }))
    await patient.store.enqueue(job({ id: 'wait-cancel', due: { delayMs: 60_000 } }))
    await patient.store.cancel('wait-cancel')
    // assess: read straight from the replica
    const replica = setup.replicas[0]!
    const direct = new Redis(replica.url)
    try {
      const jobsKey = engine.keys.locate('wait-ok').shard.jobs
      expect(created.status).toBe('created')
      expect(replaced.status).toBe('replaced')
      expect(await direct.hexists(jobsKey, 'wait-ok')).toBe(1)
      expect(await direct.hexists(engine.keys.locate('wait-cancel').shard.jobs, 'wait-cancel')).toBe(0)
    } finally {
      direct.disconnect()
    }
  })

  it('refuses to call an enqueue, a batch or a cancel a success when the replica does not confirm it', async () => {
    // prepare
    await patient.store.enqueue(job({ id: 'wait-cancel-2', due: { delayMs: 60_000 } }))
    // act
    const [single, batch, cancel] = await withReplicaFrozen(() =>
      Promise.all([
        engine.store.enqueue(job({ id: 'wait-frozen' })).catch((e: unknown) => e),
        engine.store.enqueueMany([job({ id: 'wait-frozen-b1' }), job({ id: 'wait-frozen-b2' })]),
        engine.store.cancel('wait-cancel-2').catch((e: unknown) => e),
      ]),
    )
    // assess
    expect(single).toBeInstanceOf(ReplicationUnconfirmedError)
    expect((single as ReplicationUnconfirmedError).message).toMatch(
      /0 of 1 replicas confirmed it within 200 ms: it may or may not survive a failover/,
    )
    expect(batch.every((r) => r instanceof ReplicationUnconfirmedError)).toBe(true)
    expect(cancel).toBeInstanceOf(ReplicationUnconfirmedError)
  })

  it('refuses to call a schedule put or delete a success when the replica does not confirm it', async () => {
    // prepare
    await new DelayQueue(patient).putSchedule('wait-sched', { queue: 'orders', payload: 1, everyMs: 60_000 })
    const queue = new DelayQueue(engine)
    // act
    const [put, removed] = await withReplicaFrozen(() =>
      Promise.all([
        queue.putSchedule('wait-sched-2', { queue: 'orders', payload: 2, everyMs: 60_000 }).catch((e: unknown) => e),
        queue.deleteSchedule('wait-sched').catch((e: unknown) => e),
      ]),
    )
    // assess
    expect(put).toBeInstanceOf(ReplicationUnconfirmedError)
    expect(removed).toBeInstanceOf(ReplicationUnconfirmedError)
  })

  it('answers 503 ReplicationUnconfirmed through the API, per job in a batch too', async () => {
    // prepare
    const api = testApi({}, engine)
    // act
    const [one, many] = await withReplicaFrozen(() =>
      Promise.all([
        api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1 } })),
        api.call(request('POST', '/jobs/batch', { body: { jobs: [{ queue: 'orders', payload: 2 }] } })),
      ]),
    )
    // assess
    expect(one.statusCode).toBe(503)
    expect(one.headers?.['retry-after']).toBe('1')
    expect(bodyOf(one).error.code).toBe('ReplicationUnconfirmed')
    expect(bodyOf(many).results[0].error.code).toBe('ReplicationUnconfirmed')
    expect(api.logs.some((l) => l.message === 'write not confirmed by Redis replicas')).toBe(true)
  })
})

describe('the local Sentinel setup', () => {
  it('declares a primary down only after 2 s: one ping period of margin for a primary a sentinel has just switched to', async () => {
    // prepare: what each sentinel was configured with
    const downAfter: number[] = []
    // act
    for (const address of setup.sentinels) {
      const [host, port] = address.split(':')
      const sentinel = new Redis({ host, port: Number(port), lazyConnect: true })
      try {
        await sentinel.connect()
        const fields = (await sentinel.call('SENTINEL', 'MASTER', setup.masterName)) as string[]
        downAfter.push(Number(fields[fields.indexOf('down-after-milliseconds') + 1]))
      } finally {
        sentinel.disconnect()
      }
    }
    // assess: at 1 s (Sentinel's ping period) a sentinel that had just switched declared the live new primary down
    // before its first PING was answered, and a second failover lost writes one of two replicas had confirmed
    expect(downAfter).toEqual([2_000, 2_000, 2_000])
  })
})
