// A rate's token stays good for TOKEN_FRESH_MS from the moment the scanner asked its bucket (src/flow/flow-gate.ts),
// not from the moment the scanner read the answer: a scanner that stalls after Redis let its jobs go (a busy CPU, a
// paused process) must not send them late, together with the tokens other scanners were given meanwhile. The stall is
// a fake clock moved on between Redis's answer and the gate reading it; the bucket is a real Redis.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { FlowGate, TOKEN_FRESH_MS } from '../../src/flow/flow-gate'
import { setFlowRate } from '../../src/flow/flow-settings'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { type Lane, type QueuedSend, type SendResult, sendDeadline, takeBatch } from '../../src/scan/dispatch/lane'
import type { ScriptedClient } from '../../src/store/scripts'
import { claimedJob } from '../support/claimed-job'
import { testStore } from '../support/engine'

const t = testStore()
afterAll(() => t.close())
afterEach(() => vi.useRealTimers())

const MAX_SEND_MS = 1_000

/** The Redis client, with the scanner stalling `stallMs` after each answer of a rate's bucket, before reading it. */
function stallingAfterBuckets(redis: ScriptedClient, stallMs: number): ScriptedClient {
  return new Proxy(redis, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target)
      if (prop !== 'sdqFlowTake') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: unknown[]) => {
        const answer = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
        vi.setSystemTime(Date.now() + stallMs)
        return answer
      }
    },
  })
}

/** What a lane does with the gate's jobs when a send slot takes its next batch: sent, or given back (and why). */
function laneTakes(jobs: ClaimedJob[]): { sent: string[]; givenBack: Map<string, string> } {
  const givenBack = new Map<string, string>()
  const settle = (job: ClaimedJob, result: SendResult) => {
    if ('error' in result) givenBack.set(job.id, result.error)
  }
  const entries: QueuedSend[] = jobs.map((job) => ({ job, body: '{}', bytes: 2, settle }))
  const lane: Lane = {
    queueUrl: 'http://127.0.0.1/orders',
    fifo: false,
    entries,
    blocked: new Map(),
    holdMs: () => 0,
    busy: false,
    earliestDeadline: Math.min(...jobs.map((job) => sendDeadline(job, MAX_SEND_MS))),
  }
  const sent = takeBatch(lane, 256 * 1024, MAX_SEND_MS).map((entry) => entry.job.id)
  return { sent, givenBack }
}

async function gateFor(key: string, stallMs: number): Promise<FlowGate> {
  await setFlowRate(t.redis, t.keys, { flowKey: key }, { rate: 20, burst: 4 })
  const gate = new FlowGate({ redis: stallingAfterBuckets(t.redis, stallMs), keys: t.keys })
  await gate.reload()
  return gate
}

const jobsOf = (key: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    claimedJob(`${key}-${i}`, {
      queue: 'orders',
      groupId: undefined,
      flowKey: key,
      leaseDeadline: Date.now() + 60_000,
    }),
  )

describe('a rate token', () => {
  it('is spent by a scanner that stalls between the bucket answering and reading the answer: the job is given back', async () => {
    // prepare: a quiet key (its burst of 4 may go at once); the scanner stalls 250 ms after the bucket answers
    vi.useFakeTimers({ toFake: ['Date'] })
    const gate = await gateFor('stalled', 250)
    const jobs = jobsOf('stalled', 3)
    const askedAt = Date.now()
    // act
    const letGo = await gate.pass(jobs)
    const lane = laneTakes(letGo)
    // assess: the bucket let all three go, but their tokens were good until 100 ms after the ask, long past when the
    // scanner could start their sends: none is sent, each is given back to ask the bucket again
    expect(letGo.map((j) => j.id)).toEqual(['stalled-0', 'stalled-1', 'stalled-2'])
    for (const job of letGo) expect(job.sendBy).toBeLessThanOrEqual(askedAt + TOKEN_FRESH_MS)
    expect(lane.sent).toEqual([])
    expect([...lane.givenBack.values()]).toEqual(
      Array(3).fill(expect.stringMatching(/rate token was not used in time/)),
    )
  })

  it('is used by a scanner that reads the answer in time: the jobs are sent', async () => {
    // prepare: the same, with a 20 ms pause after the answer (well inside a token's 100 ms)
    vi.useFakeTimers({ toFake: ['Date'] })
    const gate = await gateFor('prompt', 20)
    const jobs = jobsOf('prompt', 3)
    // act
    const lane = laneTakes(await gate.pass(jobs))
    // assess
    expect(lane.sent).toEqual(['prompt-0', 'prompt-1', 'prompt-2'])
    expect(lane.givenBack.size).toBe(0)
  })
})
