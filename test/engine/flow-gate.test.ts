// The scanner's flow gate (src/flow/flow-gate.ts) deciding a claim's jobs, with settings read from a real Redis: what
// goes at once without a call to Redis, what waits for a bucket or a pause, and a FIFO group held as a whole.
import { afterAll, describe, expect, it } from 'vitest'
import { FlowGate } from '../../src/flow/flow-gate'
import { FlowTally } from '../../src/flow/flow-metrics'
import { pauseFlow, setFlowRate } from '../../src/flow/flow-settings'
import { claimedJob } from '../support/claimed-job'
import { testStore } from '../support/engine'

const t = testStore({ shards: 2 })
afterAll(() => t.close())

const standard = (id: string, flowKey?: string) =>
  claimedJob(id, { queue: 'orders', groupId: undefined, ...(flowKey ? { flowKey } : {}) })

describe('the flow gate', () => {
  it('lets jobs it has nothing to say about go at once, and keeps a FIFO group with a gated job together', async () => {
    // prepare: "mail" limited, "emails.fifo" not; a claim with other jobs, a mail job, and a FIFO group whose second
    // job carries the limited key
    await setFlowRate(t.redis, t.keys, { flowKey: 'mail' }, { rate: 10, burst: 1 })
    const gate = new FlowGate({ redis: t.redis, keys: t.keys })
    await gate.reload()
    const jobs = [
      standard('other-1'),
      standard('mail-1', 'mail'),
      claimedJob('g-1', { queue: 'emails.fifo', groupId: 'g' }),
      claimedJob('g-2', { queue: 'emails.fifo', groupId: 'g', flowKey: 'mail' }),
      claimedJob('h-1', { queue: 'emails.fifo', groupId: 'h' }),
      standard('other-2', 'unlimited'),
    ]
    // act
    const { free, gated } = gate.split(jobs)
    // assess
    expect(free.map((j) => j.id)).toEqual(['other-1', 'h-1', 'other-2'])
    expect(gated.map((j) => j.id)).toEqual(['mail-1', 'g-1', 'g-2'])
  })

  it('sends everything at once without settings, and gates every job of a paused queue', async () => {
    // prepare
    const empty = testStore({ shards: 1 })
    const gate = new FlowGate({ redis: empty.redis, keys: empty.keys })
    await gate.reload()
    const jobs = [standard('a'), standard('b', 'k')]
    // act
    const before = gate.split(jobs)
    await pauseFlow(empty.redis, empty.keys, { queue: 'orders' })
    await gate.reload()
    const after = gate.split(jobs)
    // assess
    expect(before).toEqual({ free: jobs, gated: [] })
    expect(after).toEqual({ free: [], gated: jobs })
    await empty.close()
  })
})

describe('the flow gate under a rate', () => {
  it('gives held jobs of a fast key send times shared by up to ten, so each comes back with others', async () => {
    // prepare: a key at 500 jobs/s (2 ms apart), burst 50; a claim of 150 of its jobs, due at the same time
    const store = testStore({ shards: 1 })
    await setFlowRate(store.redis, store.keys, { flowKey: 'fast' }, { rate: 500, burst: 50 })
    const held: number[] = []
    const gate = new FlowGate({
      redis: store.redis,
      keys: store.keys,
      observer: { rateHeld: (_queue, _name, lateMs) => held.push(lateMs) },
    })
    await gate.reload()
    const jobs = Array.from({ length: 150 }, (_, i) => standard(`fast-${i}`, 'fast'))
    // act
    const sent = await gate.pass(jobs)
    // assess: the burst leaves; the other 100 come back at about 10 times (the cells of 20 ms), 10 jobs a time at
    // most, rather than at 100 times 2 ms apart (100 wake-ups, claims and bucket calls)
    expect(sent).toHaveLength(50)
    expect(held).toHaveLength(100)
    const perTime = new Map<number, number>()
    for (const late of held) perTime.set(late, (perTime.get(late) ?? 0) + 1)
    expect(perTime.size).toBeLessThanOrEqual(11)
    expect(Math.max(...perTime.values())).toBeLessThanOrEqual(10)
    await store.close()
  })

  it("counts a job a rate held once per attempt: one its claim paced that the key's bucket holds again is not counted again", async () => {
    // prepare: key "once" at 1 job a second, burst 1; the tally the scan function publishes
    const store = testStore({ shards: 1 })
    await setFlowRate(store.redis, store.keys, { flowKey: 'once' }, { rate: 1, burst: 1 })
    const tally = new FlowTally()
    const gate = new FlowGate({ redis: store.redis, keys: store.keys, observer: tally })
    await gate.reload()
    const due = Date.now() - 1_000
    const fresh = (id: string) => standard(id, 'once')
    const first = [fresh('new-1'), fresh('new-2')].map((j) => Object.assign(j, { dueMs: due, orderMs: due }))
    // a claim paced it (counted then: FlowGate.paced), and it came back at its pace time, its attempt not counted
    const back = Object.assign(standard('paced-1', 'once'), { dueMs: due, orderMs: due + 500 })
    // act
    gate.paced([{ name: 'k:once', count: 1, latestLateMs: 500 }])
    const sent = await gate.pass([...first, back])
    const lines: string[] = []
    tally.addTo({ addMetric: (name, _unit, value) => void lines.push(`${name} ${value}`) })
    // assess: new-1 took the token; new-2 and paced-1 are held, but paced-1 was counted once already, by its pace
    expect(sent.map((j) => j.id)).toEqual(['new-1'])
    expect(lines[0]).toBe('FlowRateHeld 2')
    await store.close()
  })
})
