// Scenario: SQS misbehaves while two scanner processes dispatch: a fault proxy (test/support/sqs-fault-proxy.ts) refuses
// 10% of all SendMessageBatch entries (they come back under `Failed`) and cuts the endpoint off twice, open
// connections and requests in flight included. Refused and failed entries must be retried until SQS has them.
import { sleep } from '../../devkit/sleep'
import { DeadSet } from '../../src/ops/dead-set'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSqsFaultProxy, type SqsFaultProxy } from '../support/sqs-fault-proxy'
import { audit, enqueueAll, spawnScanner, startStage, waitForDrain, type Stage } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const JOBS = pick(2_000, 50_000)
const SPREAD_MS = pick(4_000, 40_000)
const CUT_MS = pick(1_000, 5_000)
const REFUSE_RATE = 0.1

let stage: Stage
let proxy: SqsFaultProxy
beforeAll(async () => {
  // Cuts and injected InternalErrors (SenderFault false) are not the jobs' fault: they never count toward the dead set
  // (src/scan/dispatch/dispatcher.ts), so this backoff (100 ms doubling to 5 s) only paces the retries.
  stage = await startStage({ env: { DISPATCH_BACKOFF_BASE_MS: '100', DISPATCH_BACKOFF_MAX_MS: '5000' } })
  proxy = await startSqsFaultProxy({ target: stage.sqs.endpoint, refuseRate: REFUSE_RATE })
})
afterAll(async () => {
  await proxy?.close()
  await stage?.close()
})

describe('SQS refusing entries and going away', () => {
  it(
    `loses none of ${JOBS} jobs with ${REFUSE_RATE * 100}% of entries refused and two ${CUT_MS} ms outages`,
    async () => {
      // prepare: jobs due over SPREAD_MS; scanners send through the proxy
      const jobs = Array.from({ length: JOBS }, (_, i) => ({
        id: `s-${i}`,
        queue: 'orders',
        payloadJson: JSON.stringify({ i }),
        due: { delayMs: Math.floor((i / JOBS) * SPREAD_MS) },
      }))
      const accepted = await enqueueAll(stage.engine, jobs)
      const env = { ...stage.env, SQS_ENDPOINT: proxy.url }
      const workers = [await spawnScanner(env), await spawnScanner(env)]
      await Promise.all(workers.map((w) => w.ready))
      // act: two outages while jobs fall due
      await sleep(SPREAD_MS * 0.25)
      await proxy.cutFor(CUT_MS)
      await sleep(SPREAD_MS * 0.25)
      await proxy.cutFor(CUT_MS)
      const drained = await waitForDrain(stage.engine, pick(30_000, 180_000))
      await Promise.all(workers.map((w) => w.stop()))
      // assess
      const result = await audit(stage, accepted)
      const released = workers
        .flatMap((w) => w.lines)
        .filter((l) => l.event === 'loop')
        .reduce((n, l) => n + Number(l.released), 0)
      recordFigures({
        case: 'sqs-faults',
        scenario: `2 scanner processes; fault proxy refuses ${REFUSE_RATE * 100}% of batch entries; endpoint cut twice`,
        jobs: JOBS,
        faults: `${proxy.stats.entriesRefused} entries refused, ${proxy.stats.cuts} cuts of ${CUT_MS / 1000} s (${proxy.stats.requestsCut} answers lost)`,
        lost: result.lost.length,
        duplicated: result.duplicated,
        notes: { releasedForRetry: released, dead: result.dead, drained },
      })
      expect(proxy.stats.entriesRefused).toBeGreaterThan(JOBS * REFUSE_RATE * 0.5)
      expect(proxy.stats.cuts).toBe(2)
      expect(released).toBeGreaterThanOrEqual(proxy.stats.entriesRefused)
      expect(drained).toBe(true)
      expect(result.lost).toEqual([])
      // A dead job is not lost (it waits in the dead set for a retry), but here every job should ride the outages out.
      const dead = result.dead ? await new DeadSet(stage.engine.redis, stage.engine.keys).list({ limit: 10 }) : []
      expect(result.dead, `dead jobs: ${JSON.stringify(dead.map((j) => ({ id: j.id, lastError: j.lastError })))}`).toBe(
        0,
      )
      expect(result.distinct).toBe(JOBS)
    },
    pick(90_000, 600_000),
  )
})
