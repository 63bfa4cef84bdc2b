// Acks that wait for the shard's next claim (src/scan/claims/ack-hold.ts): fewer round trips in a steady stream, and still
// every job acked once, sent once, whatever happens to the held acks.
import { eventually } from '../support/eventually'
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { AckHold } from '../../src/scan/claims/ack-hold'
import type { Leases } from '../../src/scan/claims/leases'
import type { ShardState } from '../../src/scan/loop/wake'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner, type TestScannerOptions } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

type Call = { op: 'claim' | 'ack'; at: number; ids: string[]; rode?: boolean; direct?: boolean; failed?: boolean }

// True while AckHold.ack runs: an ack written then was not held (AckHold writes it at once, in that call); a held one
// is written later, by flush() right before a claim or by the hold's timer.
let inHoldAck = false
const holdAck = AckHold.prototype.ack
AckHold.prototype.ack = function (this: AckHold, ...args: Parameters<AckHold['ack']>) {
  inHoldAck = true
  try {
    return holdAck.apply(this, args)
  } finally {
    inHoldAck = false
  }
}
afterAll(() => {
  AckHold.prototype.ack = holdAck
})

/**
 * Records each claim and ack the scanner issues, in order, with the time it was issued. An ack rides with a claim
 * when it was held (not written at once by AckHold.ack) and the claim step's first Redis call (the claim, or the hint
 * seeding before it when the shard has no hints) is issued before the event loop turns after it: the scanner writes
 * held acks right before that step, in the same tick. An ack written at once can meet a claim in the same turn too
 * (on a loaded machine one turn handles several answers: the send's and the previous claim's), so it is told apart
 * by `direct`. `noteAck` records an ack issued some other way (a fault).
 */
function recordCalls(leases: Leases): { calls: Call[]; noteAck: (ids: string[]) => Call; ack: Leases['ack'] } {
  const calls: Call[] = []
  let open: Call | undefined
  const noteAck = (ids: string[]) => {
    const call: Call = { op: 'ack', at: performance.now(), ids, direct: inHoldAck }
    calls.push(call)
    open = call
    setImmediate(() => {
      if (open === call) open = undefined
    })
    return call
  }
  const claimStep = () => {
    if (open) open.rode = true
    open = undefined
  }
  const claim = leases.claim.bind(leases)
  const seedHints = leases.seedHints.bind(leases)
  const ack = leases.ack.bind(leases)
  leases.seedHints = (...args) => {
    claimStep()
    return seedHints(...args)
  }
  leases.claim = (...args) => {
    calls.push({ op: 'claim', at: performance.now(), ids: [] })
    claimStep()
    return claim(...args)
  }
  leases.ack = (shard, items) => {
    noteAck(items.map((i) => i.id))
    return ack(shard, items)
  }
  return { calls, noteAck, ack }
}

/** Held acks written in the same tick as a claim. */
function riding(calls: Call[]): Call[] {
  return calls.filter((c) => c.op === 'ack' && c.rode && !c.direct)
}

/** One shard, a queue, and a scanner (30 s poll unless told) whose claims, acks and last accepted send are recorded. */
async function stage(queueName: string, options: Omit<TestScannerOptions, 'queues' | 'onSent'>) {
  const t = testStore({ shards: 1 })
  const q = await createQueue(sqs, queueName)
  let sentAt = 0
  const s = testScanner(t, {
    queues: { orders: q.url },
    pollIntervalMs: 30_000,
    ...options,
    onSent: () => {
      sentAt = performance.now()
    },
  })
  const { calls, noteAck, ack } = recordCalls(s.leases)
  return {
    t,
    q,
    s,
    calls,
    noteAck,
    /** The unrecorded ack. */
    ack,
    sentAt: () => sentAt,
    async close() {
      await s.close()
      await t.close()
    },
  }
}

/**
 * Makes acks fail as Redis or a bad item would: the first held one (issued in the tick of a claim: told one turn of
 * the event loop after it is issued, then refused), or every call that acks more than one job.
 */
function failAcks(st: Awaited<ReturnType<typeof stage>>, when: 'first held' | 'merged', error: string) {
  const recorded = st.s.leases.ack
  let failed = false
  st.s.leases.ack = (shard, items) => {
    if (when === 'merged') {
      if (items.length === 1) return recorded(shard, items)
      st.noteAck(items.map((i) => i.id))
      return Promise.reject(new Error(error))
    }
    if (failed) return recorded(shard, items)
    const call = st.noteAck(items.map((i) => i.id))
    return new Promise((r) => setImmediate(r)).then(() => {
      if (!call.rode || call.direct) return st.ack(shard, items)
      failed = true
      call.failed = true
      throw new Error(error)
    })
  }
}

describe('acks held for the next claim', () => {
  it('in a steady stream, writes each ack together with the next claim, and acks every job once', async () => {
    // prepare: five jobs due 400 ms apart, so each one's claim comes within the 1 s hold after the previous send.
    // Not closer, and the first not sooner than 1 s: on a loaded machine a late start or a stall of more than the
    // gap has one claim take two jobs, and fewer claims carry fewer acks (a 150 ms gap gave 2 riding acks of 4 in
    // one of five runs beside two busy loops).
    const st = await stage('ack-hold-stream', { ackHoldMs: 1_000 })
    const first = Date.now() + 1_000
    const ids = ['s1', 's2', 's3', 's4', 's5']
    for (const [i, id] of ids.entries()) await st.t.store.enqueue(job({ id, due: { atMs: first + i * 400 } }))
    // act
    await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    // assess: the first four acks were issued right before a claim (same tick), the last one alone at the end
    const acks = st.calls.filter((c) => c.op === 'ack')
    expect(acks.flatMap((a) => a.ids).sort()).toEqual(ids)
    expect(riding(st.calls).length).toBeGreaterThanOrEqual(3)
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it('acks at once when the next claim is further away than the hold', async () => {
    // prepare: one job, and nothing else due before the 30 s poll (its own lease ends after 60 s), which is further
    // away than the 5 s hold
    const st = await stage('ack-hold-alone', { leaseMs: 60_000, ackHoldMs: 5_000 })
    await st.t.store.enqueue(job({ id: 'alone', due: { delayMs: 300 } }))
    // act
    const run = st.s.scanner.run(Date.now() + 15_000)
    await eventually(async () => (await pendingCount(st.t.store)) === 0)
    // assess: acked right after the send (a held ack would wait 5 s), while the scanner still runs
    const ack = st.calls.find((c) => c.op === 'ack')!
    expect(ack.ids).toEqual(['alone'])
    expect(ack.at - st.sentAt()).toBeLessThan(2_000)
    expect(st.calls[st.calls.indexOf(ack) + 1]).toBeUndefined()
    st.s.scanner.stop()
    await run
    await st.close()
  })

  it("does not hold an ack for a poll: only a due job's claim carries one", async () => {
    // prepare: one job; the shard's next wake is the 2 s poll, within the 5 s hold, but nothing is due then
    const st = await stage('ack-hold-poll', { pollIntervalMs: 2_000, leaseMs: 60_000, ackHoldMs: 5_000 })
    await st.t.store.enqueue(job({ id: 'polled', due: { delayMs: 300 } }))
    // act
    await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    // assess: acked right after the send, not at the poll 2 s later
    const ack = st.calls.find((c) => c.op === 'ack')!
    expect(ack.ids).toEqual(['polled'])
    expect(ack.at - st.sentAt()).toBeLessThan(1_000)
    await st.close()
  })

  it('stopping the run sends held acks at once: the run ends with nothing pending', async () => {
    // prepare: the job's send ends while the shard sleeps until a second job 5 s later, within the 10 s hold, so its
    // ack is held
    const st = await stage('ack-hold-stop', { leaseMs: 60_000, ackHoldMs: 10_000 })
    const first = Date.now() + 400
    await st.t.store.enqueue(job({ id: 'held', due: { atMs: first } }))
    await st.t.store.enqueue(job({ id: 'later', due: { atMs: first + 5_000 } }))
    const run = st.s.scanner.run(Date.now() + 20_000)
    await eventually(() => st.sentAt() !== 0)
    await sleep(50)
    // act
    const stoppedAt = performance.now()
    st.s.scanner.stop()
    const report = await run
    // assess: the held ack went out when the run stopped, long before its 10 s hold; the later job stays scheduled
    expect(performance.now() - stoppedAt).toBeLessThan(5_000)
    expect(st.calls.filter((c) => c.op === 'ack' && c.at < stoppedAt)).toEqual([])
    expect(report.dispatched).toBe(1)
    expect(st.calls.filter((c) => c.op === 'ack').flatMap((c) => c.ids)).toEqual(['held'])
    expect(await st.t.store.get('held')).toBeNull()
    expect((await st.t.store.get('later'))!.status).toBe('scheduled')
    await st.close()
  })

  it('an ack that fails while held is retried: the job is acked once and sent once', async () => {
    // prepare: the first held ack call fails (as if Redis dropped the connection), later ones go through; four jobs
    // due 200 ms apart and a 1 s hold, so a send that ends while the shard sleeps for the next job has its ack held,
    // even when SQS is slow on a loaded machine; the first one 1 s away, so a slow start does not find them all due
    const st = await stage('ack-hold-fail', { ackHoldMs: 1_000 })
    failAcks(st, 'first held', 'Connection is closed.')
    const first = Date.now() + 1_000
    const ids = ['f1', 'f2', 'f3', 'f4']
    for (const [i, id] of ids.entries()) await st.t.store.enqueue(job({ id, due: { atMs: first + i * 200 } }))
    // act
    const report = await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    // assess: a held ack (written right before the next claim) failed, and nothing was lost or doubled. The held ack
    // of one send fails back to its settle step, which counts a Redis error and tries again; acks merged from two
    // sends (both ended within one hold: seen on a loaded Cluster run) are tried again send by send inside the hold
    const failed = st.calls.filter((c) => c.failed)
    expect(failed).toHaveLength(1)
    if (failed[0]!.ids.length === 1) expect(report.errors).toBeGreaterThanOrEqual(1)
    expect(await pendingCount(st.t.store)).toBe(0)
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it('acks merged from two sends that fail together are tried again send by send', async () => {
    // prepare: two leased jobs, a shard asleep until a job due 50 ms away, and a Leases whose ack refuses any call
    // that carries more than one job (as if one of them were bad)
    const st = await stage('ack-hold-merged', {})
    const shard = st.t.keys.shards[0]!
    await st.t.store.enqueue(job({ id: 'm1' }))
    await st.t.store.enqueue(job({ id: 'm2' }))
    const { jobs } = await st.s.leases.claim(shard, await st.s.leases.seedHints(shard, 16), 10)
    expect(jobs.map((j) => j.id).sort()).toEqual(['m1', 'm2'])
    failAcks(st, 'merged', 'bad schedule record')
    const asleep: ShardState = {
      keys: shard,
      hints: [],
      sleepingUntil: Date.now() + 50,
      sleepsForDue: true,
      wake: () => {},
    }
    const hold = new AckHold(st.s.leases, [asleep], 100)
    // act: two sends' acks are held, then go out together
    const acked = Promise.all(jobs.map((j) => hold.ack(shard, [j])))
    hold.flush(shard)
    await acked
    // assess: the merged call was refused, then each send's job was acked on its own
    const acks = st.calls.filter((c) => c.op === 'ack').map((c) => c.ids.sort().join(','))
    expect(acks[0]).toBe('m1,m2')
    expect(acks.slice(1).sort()).toEqual(['m1', 'm2'])
    expect(await st.t.store.get('m1')).toBeNull()
    expect(await st.t.store.get('m2')).toBeNull()
    await st.close()
  })

  it('acks at once when a lease would not outlast the hold by a second', async () => {
    // prepare: leases of 1 s, jobs 60 ms apart: each next claim is within the hold, but no lease has hold + 1 s left
    const st = await stage('ack-hold-lease', { ackHoldMs: 100, leaseMs: 1_000 })
    const first = Date.now() + 400
    const ids = ['l1', 'l2', 'l3', 'l4']
    for (const [i, id] of ids.entries()) await st.t.store.enqueue(job({ id, due: { atMs: first + i * 60 } }))
    // act
    await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    // assess: every job acked, and no ack rode with a claim
    expect(
      st.calls
        .filter((c) => c.op === 'ack')
        .flatMap((a) => a.ids)
        .sort(),
    ).toEqual(ids)
    expect(riding(st.calls)).toEqual([])
    await st.close()
  })
})
