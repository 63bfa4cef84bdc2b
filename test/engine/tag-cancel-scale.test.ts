// Cancel by tag at scale: 100,000 jobs with one tag cancelled while a scanner sends the ones falling due. Every job
// either reaches SQS or is counted cancelled, never both; after the answer only jobs it counted in flight may still
// be sent; and its steps hold Redis briefly (SLOWLOG, on every primary: the median step under 50 ms, as a loaded
// machine's scheduler stretches runs of any script; the 99th percentile and the longest are printed).
import { eventually } from '../support/eventually'
import { afterAll, describe, expect, it } from 'vitest'
import { cancelByTag } from '../../src/store/tag-cancel'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { watchScriptRuns } from '../support/script-stalls'
import { createQueue, sqsClient } from '../support/sqs'

const JOBS = 100_000
const t = testStore({ buckets: 1024 })
const sqs = sqsClient()
afterAll(async () => {
  sqs.destroy()
  await t.close()
})

describe('cancel by tag over 100,000 jobs while the scanner runs', () => {
  it('cancels each job or lets it go to SQS, never both, in steps whose median run is under 50 ms', {
    timeout: 240_000,
  }, async () => {
    // prepare: due one a millisecond from a start, in an order unlike the ids' (the order the cancel goes in)
    const { url } = await createQueue(sqs, 'tag-scale')
    const start = Date.now() + 2_000
    const id = (i: number) => `b-${String((i * 7919) % JOBS).padStart(6, '0')}`
    for (let from = 0; from < JOBS; from += 2_000) {
      const chunk = Array.from({ length: Math.min(2_000, JOBS - from) }, (_, k) => from + k)
      const results = await t.store.enqueueMany(
        chunk.map((i) => job({ id: id(i), queue: 'tq', tags: ['bulk', `n${i % 3}`], due: { atMs: start + i } })),
      )
      expect(results.filter((r) => r instanceof Error)).toEqual([])
    }
    const sent = new Map<string, number>()
    const s = testScanner(t, {
      queues: { tq: url },
      claimBatchSize: 250,
      onSent: (j) => sent.set(j.id, performance.now()),
    })
    const stalls = await watchScriptRuns(t.redis)
    try {
      const run = s.runUntil(async () => (await t.store.stats()).queues.tq?.pending === 0, 200_000)
      await eventually(() => sent.size >= 200, 60_000)
      // act
      const began = performance.now()
      let steps = 0
      const result = await cancelByTag(t.redis, t.keys, { replicas: 0, timeoutMs: 1_000 }, 'bulk', {
        onProgress: () => steps++,
      })
      const answeredAt = performance.now()
      await run
      // assess
      const longest = await stalls.longest(['sdqTagCancel', 'sdqClaim', 'sdqAck'])
      // Runs under the SLOWLOG threshold (2 ms) are not listed: the 99th percentile is the longest but 1% of all steps.
      const runs = await stalls.runs('sdqTagCancel')
      const p99 = runs[Math.floor(steps / 100)] ?? 0
      const median = runs[Math.floor(steps / 2)] ?? 0
      const sentAfter = [...sent.values()].filter((at) => at > answeredAt).length
      console.log(
        JSON.stringify({
          cancelMs: Math.round(answeredAt - began),
          result,
          sent: sent.size,
          sentAfter,
          longest,
          steps,
          over2ms: runs.length,
          median,
          p99,
        }),
      )
      expect(result.done).toBe(true)
      expect(sent.size + result.cancelled).toBe(JOBS)
      expect(sentAfter).toBeLessThanOrEqual(result.inFlight)
      // SLOWLOG times a run on the wall clock: on a loaded machine a descheduled Redis lengthens whatever runs then,
      // the scanner's claims and acks as much as a step (at load 10 on 2 cores, with the Cluster's three masters on
      // them too: single steps, claims and acks of 60-570 ms, and the 99th percentile of the steps up to 126 ms, where
      // most steps take 1-2 ms). So the bound is on the median step, which load does not move; the 99th percentile and
      // the longest are printed. Unbounded steps fail it: steps of 20,000 jobs ran 690 ms-1.4 s each.
      expect(median).toBeLessThan(50_000)
      for (const shard of t.keys.shards) expect(await t.redis.zcard(shard.tags)).toBe(0)
    } finally {
      await stalls.restore()
      await s.close()
    }
  })
})
