// Acks that wait for the shard's next claim (src/scan/ack-hold.ts): fewer round trips in a steady stream, and still
// every job acked once, sent once, whatever happens to the held acks.
import { afterAll, describe, expect, it } from 'vitest'
import type { Leases } from '../../src/scan/leases'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

/** Records each claim and ack the scanner issues, in order, with the time it was issued. */
function recordCalls(leases: Leases) {
  const calls: { op: 'claim' | 'ack'; at: number; ids: string[] }[] = []
  const claim = leases.claim.bind(leases)
  const ack = leases.ack.bind(leases)
  leases.claim = (shard, hints, limit) => {
    calls.push({ op: 'claim', at: performance.now(), ids: [] })
    return claim(shard, hints, limit)
  }
  leases.ack = (shard, items) => {
    calls.push({ op: 'ack', at: performance.now(), ids: items.map((i) => i.id) })
    return ack(shard, items)
  }
  return calls
}

describe('acks held for the next claim', () => {
  it('in a steady stream, writes each ack together with the next claim, and acks every job once', async () => {
    // prepare: five jobs due 60 ms apart, so each one's claim comes within the 100 ms hold after the previous send
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'ack-hold-stream')
    const s = testScanner(t, { queues: { orders: q.url }, pollIntervalMs: 30_000, ackHoldMs: 100 })
    const calls = recordCalls(s.leases)
    const first = Date.now() + 500
    const ids = ['s1', 's2', 's3', 's4', 's5']
    for (const [i, id] of ids.entries()) await t.store.enqueue(job({ id, schedule: { atMs: first + i * 60 } }))
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 10_000)
    // assess: the first four acks were issued right before a claim (same tick), the last one alone at the end
    const acks = calls.filter((c) => c.op === 'ack')
    expect(acks.flatMap((a) => a.ids).sort()).toEqual(ids)
    const riding = acks.filter((a) => {
      const next = calls[calls.indexOf(a) + 1]
      return next?.op === 'claim' && next.at - a.at < 5
    })
    expect(riding.length).toBeGreaterThanOrEqual(3)
    expect([...countIds(await receiveAll(sqs, q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await s.close()
    await t.close()
  })

  it('acks at once when the next claim is further away than the hold', async () => {
    // prepare: one job, and nothing else due before the 30 s poll (its own lease ends after 60 s), which is further
    // away than the 5 s hold
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'ack-hold-alone')
    let sentAt = 0
    const s = testScanner(t, {
      queues: { orders: q.url },
      pollIntervalMs: 30_000,
      leaseMs: 60_000,
      ackHoldMs: 5_000,
      onSent: () => {
        sentAt = performance.now()
      },
    })
    const calls = recordCalls(s.leases)
    await t.store.enqueue(job({ id: 'alone', schedule: { delayMs: 300 } }))
    // act
    const run = s.scanner.run(Date.now() + 15_000)
    while ((await pendingCount(t.store)) !== 0) await new Promise((r) => setTimeout(r, 5))
    // assess: acked right after the send (a held ack would wait 5 s), while the scanner still runs
    const ack = calls.find((c) => c.op === 'ack')!
    expect(ack.ids).toEqual(['alone'])
    expect(ack.at - sentAt).toBeLessThan(2_000)
    expect(calls[calls.indexOf(ack) + 1]).toBeUndefined()
    s.scanner.stop()
    await run
    await s.close()
    await t.close()
  })

  it('stopping the run sends held acks at once: the run ends with nothing pending', async () => {
    // prepare: the job's send ends while the shard sleeps until a second job 5 s later, within the 10 s hold, so its ack is held
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'ack-hold-stop')
    let sent = 0
    const s = testScanner(t, {
      queues: { orders: q.url },
      pollIntervalMs: 30_000,
      ackHoldMs: 10_000,
      onSent: () => void sent++,
    })
    const calls = recordCalls(s.leases)
    const first = Date.now() + 400
    await t.store.enqueue(job({ id: 'held', schedule: { atMs: first } }))
    await t.store.enqueue(job({ id: 'later', schedule: { atMs: first + 5_000 } }))
    const run = s.scanner.run(Date.now() + 20_000)
    while (sent === 0) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setTimeout(r, 50))
    // act
    const stoppedAt = performance.now()
    s.scanner.stop()
    const report = await run
    // assess: the held ack went out when the run stopped, long before its 10 s hold; the later job stays scheduled
    expect(performance.now() - stoppedAt).toBeLessThan(5_000)
    expect(report.dispatched).toBe(1)
    expect(calls.filter((c) => c.op === 'ack').flatMap((c) => c.ids)).toEqual(['held'])
    expect(await t.store.get('held')).toBeNull()
    expect((await t.store.get('later'))!.status).toBe('scheduled')
    await s.close()
    await t.close()
  })

  it('an ack that fails while held is retried: the job is acked once and sent once', async () => {
    // prepare: the first ack call fails (as if Redis dropped the connection), later ones go through
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'ack-hold-fail')
    const s = testScanner(t, { queues: { orders: q.url }, pollIntervalMs: 30_000, ackHoldMs: 100 })
    const calls = recordCalls(s.leases)
    const recorded = s.leases.ack
    let failed = false
    s.leases.ack = (shard, items) => {
      if (!failed) {
        failed = true
        calls.push({ op: 'ack', at: performance.now(), ids: ['(failed)'] })
        return Promise.reject(new Error('Connection is closed.'))
      }
      return recorded(shard, items)
    }
    const first = Date.now() + 400
    for (const [i, id] of ['f1', 'f2', 'f3'].entries())
      await t.store.enqueue(job({ id, schedule: { atMs: first + i * 50 } }))
    // act
    const report = await s.runUntil(async () => (await pendingCount(t.store)) === 0, 10_000)
    // assess
    expect(failed).toBe(true)
    expect(report.errors).toBeGreaterThanOrEqual(1)
    expect(await pendingCount(t.store)).toBe(0)
    expect([...countIds(await receiveAll(sqs, q.url))].sort()).toEqual([
      ['f1', 1],
      ['f2', 1],
      ['f3', 1],
    ])
    await s.close()
    await t.close()
  })
})
