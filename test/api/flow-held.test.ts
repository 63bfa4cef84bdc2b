// A pending job that flow control holds (src/flow/flow-gate.ts) has left the due list; GET /jobs/{id} says why it
// waits: a pause of its queue or key (with its place in due order), or its key's rate (with its send time).
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { sleep } from '../../devkit/sleep'
import { FlowGate } from '../../src/flow/flow-gate'
import { Leases } from '../../src/scan/claims/leases'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())

/**
 * One scanner's claim of every due job, decided by the flow gate as the scan loop does: held ones stay in Redis.
 * `paced`: the claim paces rate-limited keys as the scan loop's does (lua/includes/flowPace.lua).
 */
async function claimThroughGate(paced = false, on = api) {
  const { redis, keys } = on.engine
  const leases = new Leases(
    redis,
    { leaseMs: 30_000, maxAttempts: 5, backoffBaseMs: 1_000, backoffMaxMs: 60_000 },
    keys,
  )
  const gate = new FlowGate({ redis, keys })
  await gate.reload()
  const sent: string[] = []
  for (const shard of keys.shards) {
    const hints = await leases.seedHints(shard, 100)
    const claim = await leases.claim(shard, hints, 100, undefined, {
      paces: paced ? gate.paceSpec() : '',
      epochWanted: false,
    })
    sent.push(...(await gate.pass(claim.jobs)).map((j) => j.id))
  }
  return sent
}

describe('held jobs in the job view', () => {
  it('shows a job held by a pause and one held by its key rate, and a job that is merely scheduled without', async () => {
    // prepare: queue "orders" paused; key "mail" at 1 job a second; three jobs due now, one later
    const due = Date.now() - 1_000
    await api.call(request('PUT', '/flow/queues/orders', { body: { paused: true } }))
    await api.call(request('PUT', '/flow/keys/mail', { body: { rate: 1, burst: 1 } }))
    const post = (id: string, queue: string, runAt: number, flowKey?: string) =>
      api.call(
        request('POST', '/jobs', {
          body: { id, queue, payload: {}, runAt: new Date(runAt).toISOString(), ...(flowKey ? { flowKey } : {}) },
        }),
      )
    await post('paused-1', 'orders', due)
    await post('mail-1', 'emails', due, 'mail')
    await post('mail-2', 'emails', due + 1, 'mail')
    await post('later-1', 'emails', Date.now() + 3_600_000, 'mail')
    // a time in the past is taken as now: the job's due time as stored
    const dueAt = bodyOf(await api.call(request('GET', '/jobs/paused-1'))).runAt
    // act
    const sent = await claimThroughGate()
    const [paused, mail2, later] = await Promise.all(
      ['paused-1', 'mail-2', 'later-1'].map(async (id) => bodyOf(await api.call(request('GET', `/jobs/${id}`)))),
    )
    // assess: the first mail job took the one token; the second waits about a second for the next
    expect(sent).toEqual(['mail-1'])
    expect(paused).toMatchObject({
      status: 'scheduled',
      held: { reason: 'paused', queue: 'orders', dueAt },
    })
    expect(mail2).toMatchObject({ status: 'scheduled', held: { reason: 'rate', flowKey: 'mail' } })
    expect(Date.parse(mail2.held.until)).toBeGreaterThan(Date.now())
    expect(mail2.runAt).toBe(mail2.held.until)
    expect(later.held).toBeUndefined()
  })

  it('shows a job its claim held for its key rate as held by that rate, until the time it comes back', async () => {
    // prepare: one shard (claims pace only then); key "pace" at 1 job a second; three jobs due now
    const one = testApi({ SHARDS: '1' })
    onTestFinished(() => one.close())
    await one.call(request('PUT', '/flow/keys/pace', { body: { rate: 1, burst: 1 } }))
    for (const id of ['pace-1', 'pace-2', 'pace-3'])
      await one.call(request('POST', '/jobs', { body: { id, queue: 'emails', payload: {}, flowKey: 'pace' } }))
    // act: the claim paces the key (the jobs it holds never reach the gate)
    const sent = await claimThroughGate(true, one)
    const views = await Promise.all(
      ['pace-1', 'pace-2', 'pace-3'].map(async (id) => bodyOf(await one.call(request('GET', `/jobs/${id}`)))),
    )
    // assess: one left; the other two wait for the key's rate, until their runAt
    expect(sent).toHaveLength(1)
    const held = views.filter((v) => v.held)
    expect(held).toHaveLength(2)
    for (const v of held) {
      expect(v).toMatchObject({ status: 'scheduled', held: { reason: 'rate', flowKey: 'pace' } })
      expect(v.runAt).toBe(v.held.until)
      expect(Date.parse(v.held.until)).toBeGreaterThan(Date.now())
    }
  })

  it("still shows a paced job as held by its key's rate after the rate is removed: it waits until its time", async () => {
    // prepare: one shard; key "gone" at 1 job a second; three jobs due now, paced by the claim
    const one = testApi({ SHARDS: '1' })
    onTestFinished(() => one.close())
    await one.call(request('PUT', '/flow/keys/gone', { body: { rate: 1, burst: 1 } }))
    for (const id of ['gone-1', 'gone-2', 'gone-3'])
      await one.call(request('POST', '/jobs', { body: { id, queue: 'emails', payload: {}, flowKey: 'gone' } }))
    await claimThroughGate(true, one)
    // act: the key's rate removed while two of its jobs wait for their pace times
    await one.call(request('PUT', '/flow/keys/gone', { body: { rate: null } }))
    const views = await Promise.all(
      ['gone-1', 'gone-2', 'gone-3'].map(async (id) => bodyOf(await one.call(request('GET', `/jobs/${id}`)))),
    )
    // assess: the two still say what they wait for, and until when
    const waiting = views.filter((v) => v.status === 'scheduled')
    expect(waiting).toHaveLength(2)
    for (const v of waiting) {
      expect(v).toMatchObject({ held: { reason: 'rate', flowKey: 'gone' } })
      expect(v.runAt).toBe(v.held.until)
    }
  })

  it('keeps a job paced before a pause in due order while the pause holds it: its due time is its place', async () => {
    // prepare: one shard; key "burst" at 10 jobs a second; three jobs due now, two of them paced by the claim
    const one = testApi({ SHARDS: '1' })
    onTestFinished(() => one.close())
    const { redis, keys } = one.engine
    await one.call(request('PUT', '/flow/keys/burst', { body: { rate: 10, burst: 1 } }))
    const ids = ['burst-1', 'burst-2', 'burst-3']
    const dueAt = new Map<string, string>()
    for (const id of ids) {
      await one.call(request('POST', '/jobs', { body: { id, queue: 'emails', payload: {}, flowKey: 'burst' } }))
      dueAt.set(id, bodyOf(await one.call(request('GET', `/jobs/${id}`))).runAt)
    }
    await claimThroughGate(true, one)
    const shard = keys.shards[0]!
    // the paced jobs wait unleased (their lease's token empty) until their times; the one let go is leased
    const paced: number[] = []
    for (const id of ids)
      if ((await redis.hget(shard.leases, id))?.endsWith(':'))
        paced.push(Number(await redis.zscore(shard.inflight, id)))
    // act: the queue paused; once the paced jobs' times come, a claim takes them again and the pause holds them
    await one.call(request('PUT', '/flow/queues/emails', { body: { paused: true } }))
    await untilRedis(one, Math.max(...paced))
    await claimThroughGate(true, one)
    const views = await Promise.all(ids.map(async (id) => bodyOf(await one.call(request('GET', `/jobs/${id}`)))))
    // assess: both held for the pause at their due times (as listed and as a resume gives back), not their pace times
    const held = views.filter((v) => v.held)
    expect(held).toHaveLength(2)
    for (const v of held) expect(v.held).toEqual({ reason: 'paused', queue: 'emails', dueAt: dueAt.get(v.id) })
  })
})

/** Waits until the Redis clock of `on` reads `ms` or later. */
async function untilRedis(on: typeof api, ms: number) {
  const now = async () => {
    const [s, us] = await on.engine.redis.time()
    return Number(s) * 1000 + Math.floor(Number(us) / 1000)
  }
  for (let t = await now(); t < ms; t = await now()) await sleep(ms - t)
}
