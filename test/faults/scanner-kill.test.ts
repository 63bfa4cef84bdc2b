// Scenario: the scanner process dies (kill -9) at random moments while it moves a large run of jobs to SQS, and is
// restarted each time. Nothing may be lost; a kill may cost at most the jobs that scanner had leased and not yet
// settled (one claimed batch here: MAX_IN_FLIGHT = CLAIM_BATCH_SIZE), sent again after their lease expires. A send
// that timed out (a loaded machine) may leave one copy more per entry: the workers report those, and the bound has them.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { audit, between, enqueueAll, spawnScanner, startStage, waitForDrain, type Stage, type Worker } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const JOBS = pick(3_000, 100_000)
const KILLS = pick(5, 100)
/** Jobs are spread over this window so the run lasts long enough for every kill to land mid-work. */
const SPREAD_MS = pick(6_000, 110_000)
const BATCH = 100

let stage: Stage
beforeAll(async () => {
  stage = await startStage({ env: { CLAIM_BATCH_SIZE: String(BATCH), MAX_IN_FLIGHT: String(BATCH), LEASE_MS: '2000' } })
})
afterAll(() => stage?.close())

describe('scanner killed with -9 and restarted', () => {
  it(
    `loses none of ${JOBS} jobs over ${KILLS} kills, and sends at most one claimed batch again per kill`,
    async () => {
      // prepare: a burst due now, the rest due over the next SPREAD_MS
      const burst = Math.floor(JOBS * 0.3)
      const jobs = Array.from({ length: JOBS }, (_, i) => ({
        id: `k-${i}`,
        queue: 'orders',
        payloadJson: JSON.stringify({ i }),
        due: { delayMs: i < burst ? 0 : Math.floor(((i - burst) / (JOBS - burst)) * SPREAD_MS) },
      }))
      const started = Date.now()
      const accepted = await enqueueAll(stage.engine, jobs)
      expect(accepted).toHaveLength(JOBS)

      // act: kill at a random moment of each worker's life, restart at once
      let worker: Worker = await spawnScanner(stage.env)
      const workers = [worker]
      let kills = 0
      const deadline = Date.now() + pick(60_000, 600_000)
      while (kills < KILLS && Date.now() < deadline) {
        await worker.ready
        await sleep(between(50, pick(700, 900)))
        await worker.kill9()
        kills++
        worker = await spawnScanner(stage.env)
        workers.push(worker)
      }
      const drained = await waitForDrain(stage.engine, pick(30_000, 180_000))
      await worker.stop()
      const runMs = Date.now() - started

      // assess
      const result = await audit(stage, accepted)
      const unanswered = workers.reduce((n, w) => n + w.unanswered.entries, 0)
      recordFigures({
        case: 'scanner-kill',
        scenario: 'one scanner process, kill -9 at random moments, restarted each time',
        jobs: JOBS,
        faults: `${kills} x kill -9`,
        lost: result.lost.length,
        duplicated: result.duplicated,
        notes: {
          duplicateBound: kills * BATCH + unanswered,
          unansweredSends: unanswered,
          claimBatch: BATCH,
          leaseMs: 2000,
          dead: result.dead,
          drained,
          runSeconds: Math.round(runMs / 1000),
        },
      })
      expect(kills).toBe(KILLS)
      expect(drained).toBe(true)
      expect(result.lost).toEqual([])
      expect(result.stillInRedis).toBe(0)
      expect(result.dead).toBe(0)
      expect(result.distinct).toBe(JOBS)
      expect(result.duplicated).toBeLessThanOrEqual(kills * BATCH + unanswered)
    },
    pick(120_000, 900_000),
  )
})
