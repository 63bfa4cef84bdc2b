// Scenario: an operator pauses two queues (a FIFO one and a standard one) in the middle of a burst, the scanner process
// dies (kill -9) while they are paused and another takes over, then the queues are resumed. Nothing may be lost,
// nothing sent early, nothing claimed for SQS while paused, and every FIFO group must arrive in its order.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pauseFlow, resumeFlow } from '../../src/flow/flow-settings'
import type { NewJob } from '../../src/store/job-store'
import { createQueue, drainInOrder } from '../support/sqs'
import { audit, enqueueAll, spawnScanner, startStage, waitForDrain, type Stage, type Worker } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const GROUPS = 4
const PER_GROUP = pick(150, 2_500)
const STANDARD = pick(600, 10_000)
/** The burst falls due over this long, from a second after the enqueue. */
const SPREAD_MS = pick(2_000, 20_000)

let stage: Stage
const workers: Worker[] = []
beforeAll(async () => {
  stage = await startStage({ env: { SHARDS: '4', CLAIM_BATCH_SIZE: '50', LEASE_MS: '2000' } })
})
afterAll(async () => {
  for (const w of workers) await w.kill9()
  await stage?.close()
})

/** Redis's clock now (ms). */
async function redisNow(): Promise<number> {
  const [s, us] = await stage.engine.redis.time()
  return Number(s) * 1000 + Math.floor(Number(us) / 1000)
}

interface Envelope {
  id: string
  payload: { group: number; n: number } | { n: number }
  runAt: string
  dispatchedAt: string
}

describe('queues paused mid-burst, scanner killed while paused, then resumed', () => {
  it(
    'loses nothing, sends nothing early or while paused, and keeps every FIFO group in order',
    async () => {
      // prepare: a FIFO queue beside the stage's "orders"; groups of jobs due over SPREAD_MS, and standard jobs
      const fifo = await createQueue(stage.sqsClient, 'paused.fifo')
      const env = { ...stage.env, QUEUES: JSON.stringify({ orders: stage.queueUrl, 'paused.fifo': fifo.url }) }
      const first = Date.now() + 1_000
      const jobs: NewJob[] = []
      for (let n = 0; n < PER_GROUP; n++) {
        for (let g = 0; g < GROUPS; g++) {
          jobs.push({
            id: `f-${g}-${n}`,
            queue: 'paused.fifo',
            groupId: `g${g}`,
            payloadJson: JSON.stringify({ group: g, n }),
            due: { atMs: first + Math.floor((n / PER_GROUP) * SPREAD_MS) },
          })
        }
      }
      for (let n = 0; n < STANDARD; n++) {
        jobs.push({
          id: `s-${n}`,
          queue: 'orders',
          payloadJson: JSON.stringify({ n }),
          due: { atMs: first + Math.floor((n / STANDARD) * SPREAD_MS) },
        })
      }
      const accepted = await enqueueAll(stage.engine, jobs)
      expect(accepted).toHaveLength(jobs.length)
      let worker = await spawnScanner(env)
      workers.push(worker)
      await worker.ready

      // act: pause both a third of the way into the burst; kill the scanner while paused, start another; wait past
      // the last due time and two leases (the killed scanner's jobs come back), then resume
      await sleep(first + SPREAD_MS / 3 - Date.now())
      await pauseFlow(stage.engine.redis, stage.engine.keys, { queue: 'paused.fifo' })
      await pauseFlow(stage.engine.redis, stage.engine.keys, { queue: 'orders' })
      const pausedAt = await redisNow()
      await sleep(300)
      await worker.kill9()
      worker = await spawnScanner(env)
      workers.push(worker)
      await worker.ready
      await sleep(Math.max(first + SPREAD_MS, Date.now()) + 4_500 - Date.now())
      const pendingWhilePaused = await stage.engine.store.stats()
      const resumedAt = await redisNow()
      await resumeFlow(stage.engine.redis, stage.engine.keys, { queue: 'paused.fifo' })
      await resumeFlow(stage.engine.redis, stage.engine.keys, { queue: 'orders' })
      const drained = await waitForDrain(stage.engine, pick(30_000, 180_000))
      await worker.stop()

      // assess: nothing lost; nothing dispatched before it was due, or between the pause and the resume (a send
      // already under way when the pause answered gets 100 ms: dispatchedAt is the scanner's reading of Redis's clock)
      const result = await audit(
        stage,
        accepted.filter((id) => id.startsWith('s-')),
      )
      const fifoMessages = await drainInOrder(stage.sqsClient, fifo.url)
      const fifoBodies = fifoMessages.map((m) => JSON.parse(m.Body!) as Envelope)
      const fifoIds = new Set(fifoBodies.map((b) => b.id))
      const lostFifo = accepted.filter((id) => id.startsWith('f-') && !fifoIds.has(id))
      const whilePaused = fifoBodies.filter((b) => {
        const at = Date.parse(b.dispatchedAt)
        return at > pausedAt + 100 && at < resumedAt
      })
      const early = fifoBodies.filter((b) => Date.parse(b.dispatchedAt) < Date.parse(b.runAt))
      // each group's first copies in the order SQS handed them out
      const orderOf = (g: number) => {
        const seen = new Set<string>()
        return fifoBodies
          .filter((b) => 'group' in b.payload && b.payload.group === g && !seen.has(b.id) && seen.add(b.id))
          .map((b) => b.payload.n)
      }
      recordFigures({
        case: 'flow-pause',
        scenario: 'two queues paused mid-burst, the scanner killed with -9 while paused and replaced, then resumed',
        jobs: jobs.length,
        faults: 'pause + kill -9 + resume',
        lost: result.lost.length + lostFifo.length,
        duplicated: result.duplicated,
        notes: { sentWhilePaused: whilePaused.length, early: early.length, drained },
      })
      expect(drained).toBe(true)
      expect(pendingWhilePaused.queues['paused.fifo']!.pending).toBeGreaterThan(0)
      expect(result.lost).toEqual([])
      expect(lostFifo).toEqual([])
      expect(result.stillInRedis).toBe(0)
      expect(whilePaused).toEqual([])
      expect(early).toEqual([])
      for (let g = 0; g < GROUPS; g++) expect(orderOf(g)).toEqual(Array.from({ length: PER_GROUP }, (_, n) => n))
    },
    pick(120_000, 600_000),
  )
})
