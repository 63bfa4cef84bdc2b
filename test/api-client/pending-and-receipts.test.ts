// The api-client's reads for operators: a page of pending jobs through GET /jobs (signed, with its cursor), and a
// dispatched job's receipt through GET /jobs/{id}.
import { describe, expect, it } from 'vitest'
import { DelayQueueApiClient } from '../../src/api-client'
import { Leases } from '../../src/scan/claims/leases'
import { servedApi } from '../api/api-helpers'

const served = servedApi()

const client = () =>
  new DelayQueueApiClient({
    url: served.api.url,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' },
  })

describe('api-client reads', () => {
  it('pages through pending jobs of a queue with listPending and its cursor', async () => {
    // prepare
    const c = client()
    for (let i = 0; i < 3; i++)
      await c.schedule({ id: `ac-list-${i}`, queue: 'orders', payload: i, delayMs: 600_000 + i })
    // act
    const first = await c.listPending({ queue: 'orders', limit: 2 })
    const second = await c.listPending({ queue: 'orders', limit: 2, cursor: first.cursor })
    // assess
    expect([...first.jobs, ...second.jobs].map((j) => j.id)).toEqual(['ac-list-0', 'ac-list-1', 'ac-list-2'])
    expect(second.cursor).toBeNull()
  })

  it("answers a dispatched job's receipt from get()", async () => {
    // prepare: a job claimed and acked as a scanner does once SQS accepted it
    const c = client()
    await c.schedule({ id: 'ac-fired', queue: 'orders', payload: 1, delayMs: 0 })
    const shard = served.engine.keys.locate('ac-fired').shard
    const leases = new Leases(served.engine.redis, {
      leaseMs: 60_000,
      maxAttempts: 3,
      backoffBaseMs: 1,
      backoffMaxMs: 1,
      receiptTtlMs: served.engine.config.dispatchReceiptTtlMs,
    })
    const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 100), 100)
    const job = jobs.find((j) => j.id === 'ac-fired')!
    const messageId = '5fea7756-0ea4-451a-a703-a558b933e274'
    await leases.ack(shard, [{ ...job, accepted: { messageId, acceptedAtMs: job.dueMs + 7 } }])
    // act
    const view = await c.get('ac-fired')
    // assess
    expect(view).toEqual({
      id: 'ac-fired',
      queue: 'orders',
      status: 'dispatched',
      runAt: new Date(job.dueMs).toISOString(),
      dueAt: new Date(job.dueMs).toISOString(),
      acceptedAt: new Date(job.dueMs + 7).toISOString(),
      messageId,
      attempts: 1,
      createdAt: new Date(job.createdAtMs).toISOString(),
    })
  })
})
