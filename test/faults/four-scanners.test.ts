// Scenario: four scanner processes share one Redis with no fault at all: claims must hand each job to exactly one
// of them, so SQS sees every job exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { audit, dueJobs, enqueueAll, spawnScanner, startStage, waitForDrain, type Stage } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const JOBS = pick(4_000, 100_000)
const SCANNERS = 4

let stage: Stage
beforeAll(async () => {
  stage = await startStage({ env: { CLAIM_BATCH_SIZE: '100', LEASE_MS: '30000' } })
})
afterAll(() => stage?.close())

describe('four scanner processes, no faults', () => {
  it(
    `deliver each of ${JOBS} jobs exactly once`,
    async () => {
      // prepare: workers up and idle first, so they all race for the same backlog
      const workers = await Promise.all(Array.from({ length: SCANNERS }, () => spawnScanner(stage.env)))
      await Promise.all(workers.map((w) => w.ready))
      // act
      const accepted = await enqueueAll(stage.engine, dueJobs(JOBS, 'four'))
      const drained = await waitForDrain(stage.engine, pick(40_000, 300_000))
      await Promise.all(workers.map((w) => w.stop()))
      // assess
      const result = await audit(stage, accepted)
      const perWorker = workers.map((w) =>
        w.lines.filter((l) => l.event === 'loop').reduce((n, l) => n + Number(l.dispatched), 0),
      )
      recordFigures({
        case: 'four-scanners',
        scenario: `${SCANNERS} scanner processes at once, no faults`,
        jobs: JOBS,
        faults: 'none',
        lost: result.lost.length,
        duplicated: result.duplicated,
        notes: { dispatchedPerScanner: perWorker.join(' / '), dead: result.dead },
      })
      expect(drained).toBe(true)
      expect(result.lost).toEqual([])
      expect(result.duplicated).toBe(0)
      expect(result.distinct).toBe(JOBS)
      expect(perWorker.reduce((a, b) => a + b, 0)).toBe(JOBS)
      expect(perWorker.filter((n) => n > 0).length).toBeGreaterThan(1)
    },
    pick(90_000, 600_000),
  )
})
