// The lines the bill of a template adds (tools/cost/model.ts, consumer.ts, peers.ts), on fixed figures: the API's
// Redis round trips, cross-AZ transfer, window batching per queue used, the consumer side, and the peers' plans.
import { describe, expect, it } from 'vitest'
import { CONSUMER_ASSUMED, consumerLines } from '../../tools/cost/consumer'
import { bill } from '../../tools/cost/model'
import { alternatives } from '../../tools/cost/peers'
import { base, item, measured } from './fixtures'

describe('the lines of a template', () => {
  it("bills the API's Redis round trips: one without a replica, three with the WAIT for one", () => {
    // 0.1 ms CPU at 512 MB's share (0.29 vCPU) + 0.1 ms waiting, then 1 ms a round trip
    const node = (replica: boolean) =>
      item(bill({ ...base, redis: 'cache.t4g.medium', replica }, measured), 'API Lambda')!.quantity
    expect(node(true)).toMatch(/x 4 ms billed .*3 ms of Redis round trips with the WAIT/)
    expect(node(false)).toMatch(/x 2 ms billed .*1 ms of Redis round trips\)/)
  })

  it('bills Lambda <-> Redis traffic across AZs for the AZs away from the primary, none on Serverless', () => {
    const crossAz = (extra: object) => item(bill({ ...base, ...extra }, measured), 'Cross-AZ transfer')!.usd
    // 10M jobs x (2 x 200 + 700) bytes = 11 GB, half of it across AZs with 2 AZs, at $0.02/GB
    expect(crossAz({ redis: 'cache.t4g.medium', azs: 2 })).toBeCloseTo(11 * 0.5 * 0.02, 6)
    expect(crossAz({ redis: 'cache.t4g.medium', azs: 3 })).toBeCloseTo(11 * (2 / 3) * 0.02, 6)
    expect(crossAz({ redis: 'serverless' })).toBe(0)
  })

  it('batches a window per queue: the same rate spread over 3 queues fills smaller requests', () => {
    const perRequest = (queuesUsed: number) =>
      item(bill({ ...base, jobsPerMonth: 100e6, windowMs: 1_000, queuesUsed }, measured), 'SQS SendMessageBatch')!
    // 38 jobs/s: one queue ~10 a request; 3 queues, 12.7 jobs/s each: 1 + Poisson(12.7), ten at most
    expect(perRequest(1).item).toContain('(10 jobs each')
    expect(perRequest(3).item).toMatch(/\(9\.\d jobs each, 1000 ms window, 3 queues\)/)
    expect(perRequest(3).usd).toBeGreaterThan(perRequest(1).usd)
  })

  it("bills the consumer's idle polling, a receive and a delete per batch, and its log lines per job", () => {
    const consumer = {
      logicalId: 'ConsumerLambdaFunction',
      handler: 'functions/consumer.handler',
      memoryMb: 256,
      batchSize: 10,
      platformLogs: true,
    }
    const usage = { jobsPerMonth: 20e6, queuesUsed: 2, retentionDays: 14 }
    const { lines } = consumerLines({ ...consumer, batchingWindowS: 0, logBytesPerJob: 600 }, usage)
    const windowed = consumerLines({ ...consumer, batchingWindowS: 1, logBytesPerJob: 600 }, usage).lines
    // 5 pollers x a 20 s long poll all month: 657,000 requests
    expect(lines[0]!.quantity).toMatch(/^657,000 requests/)
    expect(lines[0]!.usd).toBeCloseTo(657_000 * 0.4e-6, 6)
    // 10M jobs reach this queue, one a batch without a window: 20M receives and deletes
    expect(lines[1]!.usd).toBeCloseTo(20e6 * 0.4e-6, 6)
    expect(windowed[1]!.usd).toBeLessThan(lines[1]!.usd / 2)
    expect(lines[2]!.quantity).toBe(`10,000,000 invocations x ${CONSUMER_ASSUMED.toolkitMsPerInvocation} ms`)
    // 600 B a job and Lambda's lines per batch, at $0.50/GB
    expect(lines[3]!.usd).toBeGreaterThan((10e6 * 600 * 0.5) / 1e9)
  })
})

describe('the peers at the same usage', () => {
  const peer = (jobs: number, name: string, waitHours?: number) =>
    alternatives(jobs, { waitHours }).find((a) => a.system.startsWith(name))!.usd

  it("prices QStash's $180 plan from 18M to 30M a month, the $420 one up to 300M", () => {
    expect(peer(17e6, 'QStash')).toBeCloseTo(170)
    expect(peer(20e6, 'QStash')).toBe(180)
    expect(peer(31e6, 'QStash')).toBe(310)
    expect(peer(50e6, 'QStash')).toBe(420)
  })

  it('re-enqueues SQS DelaySeconds every 15 minutes: one send within 15 min, 96 hops for a day', () => {
    expect(peer(1e6, 'SQS DelaySeconds', 0.25)).toBeCloseTo(0.4)
    expect(peer(1e6, 'SQS DelaySeconds', 24)).toBeCloseTo(96 * 0.4 + 95 * (0.8 + 0.02))
  })

  it('prices BullMQ as an always-on container, a replicated node for its 966 B a delayed job, and an SQS send each', () => {
    // idle: the container and the smallest node pair; 100M a month waiting a day: 3.3M delayed jobs, 3.2 GB
    expect(peer(1, 'BullMQ')).toBeCloseTo(730 * (0.25 * 0.03238 + 0.5 * 0.00356) + 2 * 730 * 0.0128, 2)
    expect(peer(100e6, 'BullMQ') - peer(1, 'BullMQ')).toBeGreaterThan(2 * 730 * (0.1752 - 0.0128))
  })
})
