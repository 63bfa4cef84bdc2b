// The scan loop against real Redis and a real SQS endpoint: nothing lost, nothing sent twice, on time.
import { sleep } from '../../devkit/sleep'
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { startTcpProxy } from '../support/tcp-proxy'
import { job, testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'
import { batchEntries } from '../../src/sqs/prebuilt-body'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('scanner', () => {
  it('fires a job enqueued behind a far-future job on time, woken by the enqueue (poll interval 30 s)', async () => {
    // prepare
    const t = testStore()
    const q = await createQueue(sqs, 'wake')
    const s = testScanner(t, { queues: { orders: q.url }, pollIntervalMs: 30_000 })
    await t.store.enqueue(job({ id: 'far', due: { delayMs: 86_400_000 } }))
    let enqueued = false
    // (get() answers a sent job as "dispatched", from its receipt)
    const sent = async () => ((await t.store.get('soon'))?.status ?? 'dispatched') === 'dispatched'
    const run = s.runUntil(async () => enqueued && (await sent()), 5_000)
    await sleep(300) // the loop is asleep now, until the far job or the poll
    // act
    const { dueMs } = await t.store.enqueue(job({ id: 'soon', due: { delayMs: 200 } }))
    enqueued = true
    await run
    // assess: it arrived long before the 30 s poll could have found it
    const messages = await receiveAll(sqs, q.url)
    expect(messages.map((m) => JSON.parse(m.Body!).id)).toEqual(['soon'])
    const sentAt = Number(messages[0]!.Attributes!.SentTimestamp)
    expect(sentAt - dueMs).toBeLessThan(2_000)
    expect((await t.store.get('far'))!.status).toBe('scheduled')
    await s.close()
    await t.close()
  })

  it('warms its idle connection to SQS while it waits for a due job, so the send opens none, and claims at or after due', async () => {
    // prepare: a fresh scanner reaches SQS through a proxy that counts connections; a job falls due in 1.5 s, long
    // before the 30 s poll
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'warm')
    const proxy = await startTcpProxy(Number(new URL(inject('sqsEndpoint')).port))
    const s = testScanner(t, { queues: { orders: q.url }, sqsEndpoint: proxy.url, pollIntervalMs: 30_000 })
    const calls: { entries: number; startedAt: number; endedAt: number; connectionsBefore: number }[] = []
    s.sqs.middlewareStack.add((next) => async (args) => {
      const call = { entries: 0, startedAt: Date.now(), endedAt: 0, connectionsBefore: proxy.connections }
      call.entries = batchEntries(args.input as object).length
      calls.push(call)
      try {
        return await next(args)
      } finally {
        call.endedAt = Date.now()
      }
    })
    await t.store.enqueue(job({ id: 'due-soon', due: { delayMs: 1_500 } }))
    // act
    const report = await s.runUntil(async () => (await pendingCount(t.store)) === 0, 10_000)
    // assess: a warm-up (no entries) was answered before the job's send went out, and the send reused its connection
    expect(calls.map((c) => c.entries)).toEqual([0, 1])
    const [warmUp, send] = calls as [(typeof calls)[0], (typeof calls)[0]]
    expect(warmUp.endedAt).toBeLessThanOrEqual(send.startedAt)
    expect(send.connectionsBefore).toBe(1)
    expect(proxy.connections).toBe(1)
    // the job was claimed at or after its due time (Redis's clock), and its lateness is the claim's part and more
    expect(report.dispatched).toBe(1)
    const { claim, send: sendPart } = report.latenessParts!
    expect(claim.max).toBeGreaterThanOrEqual(0)
    expect(sendPart.max).toBeGreaterThanOrEqual(0)
    expect(report.lateness!.max).toBeGreaterThanOrEqual(claim.max)
    expect([...countIds(await receiveAll(sqs, q.url))]).toEqual([['due-soon', 1]])
    await s.close()
    await proxy.close()
    await t.close()
  })

  it('sends a job whose scanner died between claim and send, once', async () => {
    // prepare: a scanner leases the job (short lease) and dies
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'orphan')
    await t.store.enqueue(job({ id: 'orphan' }))
    const dead = new Leases(t.redis, { leaseMs: 300, maxAttempts: 10, backoffBaseMs: 10, backoffMaxMs: 10 })
    const shard = t.keys.shards[0]!
    const claimed = await dead.claim(shard, await dead.seedHints(shard, 10), 10)
    expect(claimed.jobs.map((j) => j.id)).toEqual(['orphan'])
    // act: a healthy scanner runs
    const s = testScanner(t, { queues: { orders: q.url } })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    // assess
    const messages = await receiveAll(sqs, q.url)
    expect([...countIds(messages)]).toEqual([['orphan', 1]])
    expect(JSON.parse(messages[0]!.Body!)).toMatchObject({ id: 'orphan', queue: 'orders' })
    await s.close()
    await t.close()
  })

  it('has 4 scanners at once deliver each of 20,011 jobs exactly once', async () => {
    // prepare
    const t = testStore({ buckets: 1024 })
    const q = await createQueue(sqs, 'four')
    for (let i = 0; i < 20_011; i += 1000) {
      const n = Math.min(1000, 20_011 - i)
      await t.store.enqueueMany(Array.from({ length: n }, (_, k) => job({ id: `f-${i + k}` })))
    }
    const scanners = Array.from({ length: 4 }, () => testScanner(t, { queues: { orders: q.url }, claimBatchSize: 100 }))
    // act
    const reports = await Promise.all(
      scanners.map((s) => s.runUntil(async () => (await pendingCount(t.store)) === 0, 60_000)),
    )
    // assess
    const counts = countIds(await receiveAll(sqs, q.url, 8))
    expect(counts.size).toBe(20_011)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    expect(reports.reduce((n, r) => n + r.dispatched, 0)).toBe(20_011)
    expect(reports.filter((r) => r.dispatched > 0).length).toBeGreaterThan(1)
    for (const s of scanners) await s.close()
    await t.close()
  }, 90_000)

  it('loses nothing while the SQS endpoint is down for a while, and an outage never sends a job to the dead set', async () => {
    // prepare
    const t = testStore()
    const q = await createQueue(sqs, 'outage')
    const proxy = await startTcpProxy(Number(new URL(inject('sqsEndpoint')).port))
    await proxy.cut()
    // two attempts allowed: the outage outlasts them, and must not count against the jobs
    const s = testScanner(t, {
      queues: { orders: q.url },
      sqsEndpoint: proxy.url,
      maxAttempts: 2,
      backoffBaseMs: 50,
      backoffMaxMs: 200,
    })
    await t.store.enqueueMany(Array.from({ length: 50 }, (_, k) => job({ id: `o-${k}` })))
    // act: the scanner fails for a while (more attempts than the two allowed), then the endpoint returns
    const run = s.runUntil(async () => (await pendingCount(t.store)) === 0, 15_000)
    await eventually(async () => ((await t.store.get('o-0'))?.attempts ?? 0) >= 3, 10_000)
    const during = await t.store.get('o-0')
    await proxy.restore()
    const report = await run
    // assess
    expect(during!.lastError?.message).toMatch(/SendMessageBatch failed/)
    expect(report.released).toBeGreaterThan(0)
    const counts = countIds(await receiveAll(sqs, q.url))
    expect(counts.size).toBe(50)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    expect((await t.store.stats()).dead).toBe(0)
    await s.close()
    await proxy.close()
    await t.close()
  })

  it('moves a job SQS keeps refusing to the dead set with its error, and sends the rest', async () => {
    // prepare: the queue takes at most 1 KiB per message
    const t = testStore()
    const q = await createQueue(sqs, 'small', { MaximumMessageSize: '1024' })
    const s = testScanner(t, { queues: { orders: q.url }, maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 20 })
    await t.store.enqueue(job({ id: 'big', payloadJson: JSON.stringify('x'.repeat(2000)) }))
    await t.store.enqueue(job({ id: 'fine' }))
    await t.store.enqueue(job({ id: 'lost-queue', queue: 'not-configured' }))
    // act
    const report = await s.runUntil(async () => (await t.store.stats()).dead === 2, 10_000)
    // assess
    expect(report.dead).toBe(2)
    expect(await t.store.get('big')).toMatchObject({ status: 'dead', lastError: { attempts: 3 } })
    expect((await t.store.get('big'))!.lastError!.message).toMatch(/SQS refused the message/)
    expect((await t.store.get('lost-queue'))!.lastError!.message).toMatch(/unknown target queue/)
    expect([...countIds(await receiveAll(sqs, q.url)).keys()]).toEqual(['fine'])
    await s.close()
    await t.close()
  })

  it('gives a FIFO target queue the group id and a deduplication id that changes with each version and incarnation', async () => {
    // prepare
    const t = testStore()
    const q = await createQueue(sqs, 'orders.fifo')
    const s = testScanner(t, { queues: { 'orders.fifo': q.url } })
    await t.store.enqueue(job({ id: 'g1', queue: 'orders.fifo', groupId: 'order-42' }))
    await t.store.upsert(job({ id: 'g1', queue: 'orders.fifo', groupId: 'order-42', payloadJson: '"v1"' }))
    await t.store.enqueue(job({ id: 'nogroup', queue: 'orders.fifo' }))
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    // assess
    const byId = new Map((await receiveAll(sqs, q.url, 1)).map((m) => [JSON.parse(m.Body!).id as string, m]))
    // the id, the version and the creation time (Redis ms, the body's createdAt)
    const sha = (id: string, v: number) => {
      const createdAt = Date.parse(JSON.parse(byId.get(id)!.Body!).createdAt)
      return createHash('sha256').update(`${id}\n${v}\n${createdAt}`).digest('hex')
    }
    expect(byId.get('g1')!.Attributes).toMatchObject({
      MessageGroupId: 'order-42',
      MessageDeduplicationId: sha('g1', 1),
    })
    expect(byId.get('nogroup')!.Attributes).toMatchObject({
      MessageGroupId: 'nogroup',
      MessageDeduplicationId: sha('nogroup', 0),
    })
    expect(byId.get('g1')!.MessageAttributes!.jobId!.StringValue).toBe('g1')
    await s.close()
    await t.close()
  })
})
