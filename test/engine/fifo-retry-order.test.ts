// A FIFO group's retries go in their order even when a release reaches its shard late. A job held back behind a refused
// one of its group is released for a retry at its place in the line (the blocker's retry time + its place); until
// that release has reached Redis, the job is still leased, and a claim of its shard finds nothing of it: it reports
// the shard claimed up to now, past that retry time. The FIFO merge (src/scan/loop/fifo-merge.ts) must not take that
// for "nothing of the group is left there", or the later jobs of the line, claimed on other shards, go first.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { batchEntries } from '../../src/sqs/prebuilt-body'
import { groupJob, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { createQueue, drainInOrder, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('FIFO retries whose release is slow', () => {
  it('sends a held-back job whose release reached its shard after its retry time before the later jobs of the line', async () => {
    // prepare: 6 jobs of one group over 4 shards, due 40 ms apart; SQS refuses evt-0 once (throttled), so evt-1..5
    // are held back behind it, each released for its place in the line. The release of evt-2 takes 2.5 s (a loaded
    // Redis or event loop), well past evt-0's retry (0.5-1 s): meanwhile its shard is claimed, and holds none of it.
    const t = testStore({ shards: 4 })
    expect(new Set(['evt-2', 'evt-3'].map((id) => t.keys.locate(id).shard.shard)).size).toBe(2)
    const q = await createQueue(sqs, 'events.fifo')
    const s = testScanner(t, {
      queues: { 'events.fifo': q.url },
      leaseMs: 60_000,
      backoffBaseMs: 1_000,
      backoffMaxMs: 1_000,
    })
    let refusedOnce = false
    s.sqs.middlewareStack.add((next) => async (args) => {
      const ids = batchEntries(args.input as object).map((e) => JSON.parse(e.MessageBody!).id as string)
      if (!refusedOnce && ids.includes('evt-0')) {
        refusedOnce = true
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $metadata: { httpStatusCode: 400 },
        })
      }
      return next(args)
    })
    let slowReleases = 0
    const release = s.leases.release.bind(s.leases)
    s.leases.release = async (shard, items) => {
      if (items.some((i) => i.id === 'evt-2')) {
        slowReleases++
        await sleep(2_500)
      }
      return release(shard, items)
    }
    const firstDue = Date.now() + 800
    await t.store.enqueueMany(Array.from({ length: 6 }, (_, i) => groupJob(i, firstDue + 40 * i)))
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 15_000)
    // assess: the refusal and the slow release happened, and the group arrived in its order
    expect(refusedOnce).toBe(true)
    expect(slowReleases).toBeGreaterThan(0)
    expect((await drainInOrder(sqs, q.url)).map((m) => JSON.parse(m.Body!).payload)).toEqual([0, 1, 2, 3, 4, 5])
    await s.close()
    await t.close()
  })
})
