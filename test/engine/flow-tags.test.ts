// Pause and resume by tag (flow control's third target beside queues and flow keys): the scanner holds the jobs that
// carry a paused tag, pending and listed, while the others leave on time; a resume sends the held ones. A tag takes
// no rate. With a real Redis and SQS.
import { afterAll, describe, expect, it } from 'vitest'
import { FlowControl } from '../../src/direct/flow-control'
import { ValidationError } from '../../src/errors'
import { FlowGate } from '../../src/flow/flow-gate'
import { pauseFlow } from '../../src/flow/flow-settings'
import { claimedJob } from '../support/claimed-job'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { testQueue } from '../support/schedules'
import { createQueue, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('pause and resume by tag', () => {
  it('gates the jobs that carry a paused tag, and only those', async () => {
    // prepare
    const t = testStore({ shards: 1 })
    await pauseFlow(t.redis, t.keys, { tag: 'order:5' })
    const gate = new FlowGate({ redis: t.redis, keys: t.keys })
    await gate.reload()
    const standard = (id: string, tags?: string[]) => claimedJob(id, { queue: 'orders', groupId: undefined, tags })
    const jobs = [standard('mine', ['user:1', 'order:5']), standard('other', ['order:6']), standard('plain')]
    // act
    const { free, gated } = gate.split(jobs)
    // assess
    expect(free.map((j) => j.id)).toEqual(['other', 'plain'])
    expect(gated.map((j) => j.id)).toEqual(['mine'])
    await t.close()
  })

  it('holds the paused tag’s due jobs pending and listed while the others go, and sends them once resumed', async () => {
    // prepare: a paused tag; 3 jobs with it and 3 without, due now, over 2 shards
    const t = testStore({ shards: 2 })
    const q = await createQueue(sqs, 'flow-tags')
    const flow = new FlowControl(t.store, { queues: { tq: q.url } })
    await flow.pause({ tag: 'order:5' })
    for (let i = 0; i < 3; i++) {
      await t.store.enqueue(job({ id: `held-${i}`, queue: 'tq', tags: ['order:5'] }))
      await t.store.enqueue(job({ id: `free-${i}`, queue: 'tq' }))
    }
    const sent: string[] = []
    const s = testScanner(t, { queues: { tq: q.url }, onSent: (j) => sent.push(j.id) })
    // act: scan until the free jobs are sent and the tagged ones held
    await s.runUntil(async () => sent.length >= 3 && (await flow.held({ tag: 'order:5' })).length === 3)
    const whilePaused = [...sent].sort()
    const held = (await flow.held({ tag: 'order:5' })).map((h) => h.id).sort()
    const pendingWhilePaused = await pendingCount(t.store)
    const heldView = await testQueue(t, { tq: q.url }).get('held-0')
    // act: resume, and scan until nothing is pending
    const resumed = await flow.resume({ tag: 'order:5' })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0)
    await s.close()
    // assess
    expect(whilePaused).toEqual(['free-0', 'free-1', 'free-2'])
    expect(held).toEqual(['held-0', 'held-1', 'held-2'])
    expect(pendingWhilePaused).toBe(3)
    expect(heldView).toMatchObject({ status: 'scheduled', held: { reason: 'paused', tag: 'order:5' } })
    expect(resumed).toMatchObject({ tag: 'order:5', paused: false, resumed: 3 })
    expect(sent.sort()).toEqual(['free-0', 'free-1', 'free-2', 'held-0', 'held-1', 'held-2'])
    await t.close()
  })

  it('refuses a rate for a tag, and a bad tag, naming the field', async () => {
    const t = testStore({ shards: 1 })
    const flow = new FlowControl(t.store, { queues: {} })
    const rate = await flow.change({ tag: 'order:5' }, { rate: 5 }).catch((e) => e)
    const bad = await flow.pause({ tag: 'a b' }).catch((e) => e)
    expect(rate).toBeInstanceOf(ValidationError)
    expect(rate.details[0].path).toBe('rate')
    expect(bad.details[0].path).toBe('tag')
    expect(await flow.list()).toEqual([])
    await t.close()
  })
})
