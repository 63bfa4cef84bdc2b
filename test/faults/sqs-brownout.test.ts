// Scenario: an SQS brownout. For a while every SendMessageBatch takes 2 s to come back (the fault proxy holds each
// call, then SQS takes its messages whether or not the sender still waits), longer than the scanner's send timeout
// while SQS answers quickly (a quarter of the lease). A call that times out may have been carried out, so each one
// that is sent again can be one more copy, and the copies load SQS further: the loop the send pace breaks
// (src/scan/dispatch/send-pace.ts). What must hold: few copies per job, fewer calls during the brownout than before
// it, and after it every job delivered, none dead.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSqsFaultProxy, type SqsFaultProxy } from '../support/sqs-fault-proxy'
import { audit, enqueueAll, spawnScanner, startStage, waitForDrain, type Stage } from './harness'
import { recordFigures } from './results'
import { pick } from './scale'

const BEFORE_MS = 5_000
const BROWNOUT_MS = pick(12_000, 30_000)
const AFTER_MS = 5_000
const JOBS_PER_S = 25
const ANSWER_DELAY_MS = 2_000
/** A quarter of it (1.5 s) is the timeout while SQS answers quickly; half of it (3 s) the longest a call may wait. */
const LEASE_MS = 6_000

let stage: Stage
let proxy: SqsFaultProxy
beforeAll(async () => {
  stage = await startStage({
    env: { LEASE_MS: String(LEASE_MS), DISPATCH_BACKOFF_BASE_MS: '100', DISPATCH_BACKOFF_MAX_MS: '1000' },
  })
  proxy = await startSqsFaultProxy({ target: stage.sqs.endpoint })
})
afterAll(async () => {
  await proxy?.close()
  await stage?.close()
})

describe('an SQS brownout', () => {
  it(`sends each job at most 3 times, slows its calls down and delivers everything after ${BROWNOUT_MS / 1000} s of ${ANSWER_DELAY_MS} ms answers`, async () => {
    // prepare: jobs due before, during and after the brownout, two scanner processes sending through the proxy
    const spanMs = BEFORE_MS + BROWNOUT_MS + AFTER_MS
    const count = Math.round((spanMs / 1_000) * JOBS_PER_S)
    const startIn = 2_000
    const jobs = Array.from({ length: count }, (_, i) => ({
      id: `b-${i}`,
      queue: 'orders',
      payloadJson: JSON.stringify({ i }),
      due: { delayMs: startIn + Math.floor((i / count) * spanMs) },
    }))
    const accepted = await enqueueAll(stage.engine, jobs)
    const env = { ...stage.env, SQS_ENDPOINT: proxy.url }
    const workers = [await spawnScanner(env), await spawnScanner(env)]
    await Promise.all(workers.map((w) => w.ready))
    // act: calls counted before the brownout (once jobs fall due) and during it
    await sleep(startIn)
    const beforeStart = proxy.stats.batchesArrived
    await sleep(BEFORE_MS)
    const callsBefore = proxy.stats.batchesArrived - beforeStart
    proxy.setBatchDelay(ANSWER_DELAY_MS)
    await sleep(BROWNOUT_MS)
    proxy.setBatchDelay(0)
    const callsDuring = proxy.stats.batchesArrived - beforeStart - callsBefore
    const drained = await waitForDrain(stage.engine, pick(60_000, 120_000))
    await Promise.all(workers.map((w) => w.stop()))
    // assess
    const result = await audit(stage, accepted)
    const loops = workers.flatMap((w) => w.lines).filter((l) => l.event === 'loop')
    const maybeSent = loops.reduce((n, l) => n + Number(l.maybeSent ?? 0), 0)
    const rateBefore = callsBefore / (BEFORE_MS / 1_000)
    const rateDuring = callsDuring / (BROWNOUT_MS / 1_000)
    recordFigures({
      case: 'sqs-brownout',
      scenario: `2 scanner processes, ${JOBS_PER_S} jobs/s; every SendMessageBatch answered after ${ANSWER_DELAY_MS} ms for ${BROWNOUT_MS / 1000} s (LEASE_MS ${LEASE_MS})`,
      jobs: count,
      faults: `${ANSWER_DELAY_MS} ms answers for ${BROWNOUT_MS / 1000} s`,
      lost: result.lost.length,
      duplicated: result.duplicated,
      notes: {
        maxCopies: result.maxCopies,
        maybeSent,
        callsPerSecondBefore: rateBefore,
        callsPerSecondDuring: rateDuring,
        dead: result.dead,
        drained,
      },
    })
    const figures = JSON.stringify({ maxCopies: result.maxCopies, maybeSent, rateBefore, rateDuring })
    expect(drained, figures).toBe(true)
    expect(result.lost).toEqual([])
    expect(result.distinct).toBe(count)
    expect(result.dead, figures).toBe(0)
    expect(result.maxCopies, figures).toBeLessThanOrEqual(3)
    // Fewer calls than before it, and well under one per due job: a round of timeouts halves the calls in flight, and
    // each of those takes 2 s (without the pace: 0.85 calls per due job, and 8 copies of one job in the 12 s case).
    expect(rateDuring, figures).toBeLessThan(rateBefore)
    expect(rateDuring, figures).toBeLessThan(0.6 * JOBS_PER_S)
  }, 180_000)
})
