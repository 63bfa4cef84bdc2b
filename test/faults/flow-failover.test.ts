// Scenario: a flow key is paused while its jobs fall due, on a Redis primary with two replicas watched by Sentinel;
// the primary is killed (-9) while the jobs are held, Sentinel promotes a replica, and the key is resumed on the new
// primary. The pause was confirmed by a replica before it answered (REDIS_WAIT_REPLICAS unset: auto), so the new
// primary still holds the key paused and its jobs held: nothing may be lost, nothing sent while paused or early.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { startSentinelSetup } from '../../local/redis-sentinel'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { readFlowSettings } from '../../src/flow/flow-settings'
import { createEngine } from '../../src/store/engine'
import type { NewJob } from '../../src/store/job-store'
import { countIds, receiveAll } from '../support/sqs'
import { enqueueAll, spawnScanner, stageEnv, startSqsStage, waitForDrain } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const JOBS = pick(400, 4_000)
const SPREAD_MS = pick(2_000, 10_000)

const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined)
})

/** Tries `act` until it answers (Redis is failing over meanwhile), for at most 30 s. */
async function untilDone<T>(act: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      return await act()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await sleep(250)
    }
  }
}

interface Envelope {
  id: string
  runAt: string
  dispatchedAt: string
}

describe('a paused flow key through a Sentinel failover', () => {
  it(
    'keeps its jobs held on the promoted replica, and sends them all after the resume, none while paused',
    async () => {
      // prepare: Sentinel with two replicas; a scanner process through Sentinel; the key's jobs due over SPREAD_MS
      const setup = await startSentinelSetup({ replicas: 2, sentinels: 3 })
      cleanup.push(() => setup.stop())
      const { endpoint, sqsClient, queueUrl } = await startSqsStage(cleanup)
      const env = {
        REDIS_SENTINELS: setup.sentinels.join(','),
        REDIS_SENTINEL_MASTER: setup.masterName,
        REDIS_WAIT_TIMEOUT_MS: '500',
        ...stageEnv('ff', queueUrl, endpoint),
      }
      const engine = createEngine(loadConfig(env), { commandTimeoutMs: 2_000 })
      engine.redis.on('error', () => undefined)
      cleanup.push(() => engine.close())
      const queue = new DelayQueue(engine)
      const first = Date.now() + 1_500
      const jobs: NewJob[] = Array.from({ length: JOBS }, (_, i) => ({
        id: `ff-${i}`,
        queue: 'orders',
        flowKey: 'tenant-1',
        payloadJson: JSON.stringify({ i }),
        due: { atMs: first + Math.floor((i / JOBS) * SPREAD_MS) },
      }))
      const accepted = await enqueueAll(engine, jobs)
      expect(accepted).toHaveLength(JOBS)
      const worker = await spawnScanner(env)
      cleanup.push(() => worker.stop())
      await worker.ready

      // act: pause a third of the way in; once every job is due, kill the primary; resume on the promoted replica
      await sleep(first + SPREAD_MS / 3 - Date.now())
      await queue.flow.pause({ flowKey: 'tenant-1' })
      const [s, us] = await engine.redis.time()
      const pausedAt = Number(s) * 1000 + Math.floor(Number(us) / 1000)
      await sleep(first + SPREAD_MS + 1_000 - Date.now())
      const old = setup.primary
      const oldAddress = `127.0.0.1:${old.port}`
      old.process.kill('SIGKILL')
      const killedAt = Date.now()
      let promoted = oldAddress
      while (promoted === oldAddress && Date.now() - killedAt < 30_000) {
        await sleep(50)
        promoted = await setup.currentPrimary().catch(() => oldAddress)
      }
      await setup.restart(old)
      // two leases: a claim the scanner made around the kill has come back, and was held again
      await sleep(4_000)
      const settings = await untilDone(() => readFlowSettings(engine.redis, engine.keys))
      const held = await untilDone(() => queue.flow.held({ flowKey: 'tenant-1' }, 1_000))
      const resumedAt = Date.now()
      await untilDone(() => queue.flow.resume({ flowKey: 'tenant-1' }))
      const drained = await waitForDrain(engine, pick(30_000, 120_000))
      await worker.stop()

      // assess
      const messages = await receiveAll(sqsClient, queueUrl, 8)
      const received = countIds(messages)
      const bodies = messages.map((m) => JSON.parse(m.Body!) as Envelope)
      const lost = accepted.filter((id) => !received.has(id))
      const whilePaused = bodies.filter((b) => {
        const at = Date.parse(b.dispatchedAt)
        return at > pausedAt + 100 && at < resumedAt
      })
      const early = bodies.filter((b) => Date.parse(b.dispatchedAt) < Date.parse(b.runAt))
      recordFigures({
        case: 'flow-failover',
        scenario: 'a flow key paused while its jobs fall due; the primary killed (-9), Sentinel promotes; then resumed',
        jobs: JOBS,
        faults: `pause + kill -9 of the primary (promoted ${promoted !== oldAddress ? promoted : 'none'}) + resume`,
        lost: lost.length,
        duplicated: [...received.values()].reduce((n, c) => n + c - 1, 0),
        notes: { heldAfterFailover: held.length, sentWhilePaused: whilePaused.length, early: early.length, drained },
      })
      expect(promoted).not.toBe(oldAddress)
      expect(settings.paused.has('k:tenant-1')).toBe(true)
      expect(held.length).toBeGreaterThan(0)
      expect(drained).toBe(true)
      expect(lost).toEqual([])
      expect(whilePaused).toEqual([])
      expect(early).toEqual([])
    },
    pick(120_000, 300_000),
  )
})
