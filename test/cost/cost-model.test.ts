// The cost model's arithmetic (tools/cost/model.ts), on fixed figures: which lines each enqueue path and mode bills,
// and that quantities follow the rules docs/cost.md states (SQS requests per job by window, 100 per batch request, ...).
import { describe, expect, it } from 'vitest'
import {
  bill,
  burstCpuMsPer1000,
  dueBucketsFor,
  recommendedScanMemoryMb,
  scanCapacityPerSec,
  scanMemoryFloorMb,
  scanSeconds,
  STREAM_CPU_SHARE,
} from '../../tools/cost/model'
import { base, item, measured, total } from './fixtures'
import { jobsPerRequest, steadyCpuMsPerJob, streamCpuShare } from '../../tools/cost/stream'

describe('cost model', () => {
  it('bills API Gateway per request on the api path, per 100 jobs on the batch path, and never through a Function URL or direct', () => {
    // act
    const api = bill(base, measured)
    const batch = bill({ ...base, enqueue: 'batch' }, measured)
    const url = bill({ ...base, enqueue: 'function-url' }, measured)
    const urlBatch = bill({ ...base, enqueue: 'function-url-batch' }, measured)
    const direct = bill({ ...base, enqueue: 'direct' }, measured)
    // assess
    expect(item(api, 'API Gateway')!.usd).toBeCloseTo(10)
    expect(item(batch, 'API Gateway')!.usd).toBeCloseTo(0.1)
    expect(item(url, 'API Gateway')).toBeUndefined()
    expect(item(url, 'API Lambda')).toBeDefined()
    expect(item(direct, 'API')).toBeUndefined()
    expect(total(direct)).toBeLessThan(total(url))
    // batches of 100 through a Function URL: the batch path's Lambda line, no API Gateway line
    expect(item(urlBatch, 'API Gateway')).toBeUndefined()
    expect(item(urlBatch, 'API Lambda')).toEqual(item(batch, 'API Lambda'))
    expect(item(urlBatch, 'API Lambda')!.quantity).toContain('100,000 requests')
    // and the HTTP API's access log line of each request
    expect(total(batch) - total(urlBatch)).toBeCloseTo(0.1 + ((100_000 * 420) / 1e9) * 0.5)
  })

  it('bills one SQS request per job of a stream without a dispatch window, and runs a continuous scan 60 times an hour for its measured length', () => {
    const lines = bill(base, measured)
    expect(item(lines, 'SQS SendMessageBatch')!.usd).toBeCloseTo((10_000_000 * 0.4) / 1e6)
    expect(scanSeconds(base, measured).seconds).toBe(60 * 730 * 66)
  })

  it('with a dispatch window, counts the jobs due within it per request (Poisson arrivals, 10 at most)', () => {
    // no window: one a request; one job due per window on average: the first and ~1 more (2.0); ten due within the
    // window end it (a request is full): at 10/s a cycle reaches 10 about two times in three (9.2 on average); many: 10
    expect(jobsPerRequest(38, 0)).toBe(1)
    expect(jobsPerRequest(1, 1_000)).toBeCloseTo(2, 4)
    expect(jobsPerRequest(10, 1_000)).toBeCloseTo(9.21, 2)
    expect(jobsPerRequest(38, 1_000)).toBeGreaterThan(9.99)
    expect(jobsPerRequest(2_000, 1_000)).toBe(10)
    // 10M a month is 3.8 jobs/s: a 5 s window carries ~20 jobs a cycle, so fewer than a fifth of the requests
    const windowed = bill({ ...base, windowMs: 5_000 }, measured)
    expect(item(windowed, 'SQS SendMessageBatch')!.usd).toBeLessThan((10_000_000 * 0.4) / 1e6 / 5)
    expect(item(windowed, 'SQS SendMessageBatch')!.item).toContain('5000 ms window')
  })

  it("with a dispatch window, divides a stream's per-cycle CPU among the jobs of a cycle, from the windowed rows", () => {
    // prepare: at 40/s a 1 s window cut the CPU per job from 2.5 to 0.5 ms; a cycle carried 10 jobs (a full
    // request), so 0.5 = 2.5 (f + (1 - f) / 10): f = 1/9 of a job's CPU is its own
    const m = { ...measured, scanWindowedCpuMsPerJob: [{ jobsPerSec: 40, windowMs: 1_000, cpuMsPerJob: 0.5 }] }
    // assess: the row itself, a shorter window (its cycles: 1 + Poisson(10), ten at most: 9.21 jobs), none
    expect(steadyCpuMsPerJob(40, m, 1_000)).toBeCloseTo(0.5, 6)
    expect(steadyCpuMsPerJob(40, m, 250)).toBeCloseTo(2.5 * (1 / 9 + 8 / 9 / jobsPerRequest(40, 250)), 6)
    expect(jobsPerRequest(40, 250)).toBeCloseTo(9.21, 2)
    expect(steadyCpuMsPerJob(40, m, 0)).toBe(2.5)
    // the scan size follows: 38 jobs/s x ~0.5 ms fits 128 MB's share, but 128 MB drains 724 jobs/s in a burst (100
    // CPU ms per 1,000 jobs) where the burst rule asks 20 x 38 = 761: 192 MB
    expect(recommendedScanMemoryMb({ jobsPerMonth: 100e6, mode: 'continuous', windowMs: 1_000 }, m)).toBe(192)
    expect(() => steadyCpuMsPerJob(40, measured, 1_000)).toThrow('run `npm run bench:right-size`')
  })

  it("with a dispatch window, takes the packaged function's own pair of streams when bench:lambda-size measured both", () => {
    // prepare: the packaged function used 5.0 ms a job without a window and 1.5 with the 1 s window, at 40/s
    const m = {
      ...measured,
      scanWindowedCpuMsPerJob: [{ jobsPerSec: 40, windowMs: 1_000, cpuMsPerJob: 0.5 }],
      scanStreamCpuMsPerJob: { jobsPerSec: 40, cpuMsPerJob: 5 },
      scanWindowedStreamCpuMsPerJob: { jobsPerSec: 40, windowMs: 1_000, cpuMsPerJob: 1.5 },
    }
    // assess: the model gives back the packaged figures, not the in-process 0.5 / 2.5 ratio
    expect(steadyCpuMsPerJob(40, m, 0)).toBeCloseTo(5, 6)
    expect(steadyCpuMsPerJob(40, m, 1_000)).toBeCloseTo(1.5, 6)
  })

  it('bills an idle on-demand deployment for its ticks, never more than continuous, and the storage minimum', () => {
    // act
    const idle = scanSeconds({ ...base, mode: 'on-demand', jobsPerMonth: 0 }, measured)
    const busy = scanSeconds({ ...base, mode: 'on-demand', jobsPerMonth: 1e9 }, measured)
    const lines = bill({ ...base, mode: 'on-demand', jobsPerMonth: 0, enqueue: 'direct' }, measured)
    // assess
    expect(idle.seconds).toBeCloseTo(60 * 730 * 0.01)
    expect(busy.seconds).toBeLessThanOrEqual(60 * 730 * 66)
    expect(busy.seconds).toBeGreaterThan(0.9 * 60 * 730 * 66) // jobs every few ms: the scanner never leaves
    expect(item(lines, 'Redis: ElastiCache Serverless Valkey storage')!.usd).toBeCloseTo(0.1 * 730 * 0.084)
    expect(item(lines, 'Lambda interface VPC endpoint')).toBeDefined() // enqueuers start scans through Lambda's API
  })

  it('grows Redis storage with pending jobs (jobs a month x wait) and picks the cheaper Redis on auto', () => {
    const storage = (waitHours: number) =>
      item(
        bill({ ...base, jobsPerMonth: 100_000_000, waitHours, receiptTtlHours: 0 }, measured),
        'Redis: ElastiCache Serverless Valkey storage',
      )!.usd
    expect(storage(24) / storage(12)).toBeCloseTo(2)
    const auto = bill({ ...base, jobsPerMonth: 100_000_000, redis: 'auto' }, measured)
    const serverless = bill({ ...base, jobsPerMonth: 100_000_000 }, measured)
    expect(total(auto)).toBeLessThanOrEqual(total(serverless))
  })

  it("adds the dispatch receipts a retention keeps to Redis's memory, at the bytes measured for the hourly volume", () => {
    // prepare: 100M jobs a month are 136,986 receipts an hour, billed at the larger of the figures measured around
    // that volume (75 B at 100,000 an hour, 85 B at 500,000: past 131,072 an hour the hashes leave the compact encoding)
    const storageGb = (receiptTtlHours?: number) => {
      const line = item(
        bill({ ...base, jobsPerMonth: 100_000_000, receiptTtlHours }, measured),
        'Redis: ElastiCache Serverless Valkey storage',
      )!
      return line.usd / (730 * 0.084)
    }
    // act
    const none = storageGb(0)
    const day = storageGb(undefined)
    const hour = storageGb(1)
    // assess: a day's receipts (kept 24.5 h on average: an hour's hash expires whole) at 75 B each
    const perHour = 100_000_000 / 730
    expect(day - none).toBeCloseTo((perHour * 24.5 * 85) / 1e9, 3)
    expect(hour - none).toBeCloseTo((perHour * 1.5 * 85) / 1e9, 3)
    const line = item(bill({ ...base, jobsPerMonth: 100_000_000 }, measured), 'Redis: ElastiCache Serverless')!
    expect(line.quantity).toContain('3,356,164 dispatch receipts')
    // a small volume pays the small-volume figure (150 B at 1,000 an hour, above the 75 B at 100,000)
    const small = bill({ ...base, jobsPerMonth: 730_000, redis: 'cache.t4g.micro' }, measured)
    expect(item(small, 'Redis: cache.t4g.micro')!.quantity).toContain('24,500 dispatch receipts')
  })

  it('bills no endpoint over IPv6, and both interface endpoints by the hour in on-demand mode otherwise', () => {
    // act
    const ipv6 = bill({ ...base, mode: 'on-demand', egress: 'ipv6' }, measured)
    const endpoints = bill({ ...base, mode: 'on-demand', egress: 'endpoints', endpointAzs: 2 }, measured)
    // assess
    expect(ipv6.filter((l) => l.item.includes('VPC endpoint'))).toEqual([])
    expect(item(ipv6, 'Egress: IPv6')!.usd).toBe(0)
    expect(item(endpoints, 'Lambda interface VPC endpoint')!.usd).toBeCloseTo(2 * 730 * 0.01)
    expect(total(endpoints) - total(ipv6)).toBeGreaterThan(2 * 2 * 730 * 0.01)
  })

  it('recommends the smallest scan memory whose CPU share a steady stream uses at most 40% of, from 256 MB (512 MB on demand)', () => {
    // nothing scheduled: the floors
    expect(recommendedScanMemoryMb({ jobsPerMonth: 0, mode: 'continuous' }, measured)).toBe(256)
    expect(recommendedScanMemoryMb({ jobsPerMonth: 0, mode: 'on-demand' }, measured)).toBe(512)
    // 1M a month (0.38 jobs/s at 4 ms each): 1.5 ms of CPU a second, far below 256 MB's 0.145 vCPU
    expect(recommendedScanMemoryMb({ jobsPerMonth: 1e6, mode: 'continuous' }, measured)).toBe(256)
    // 100M a month, 38 jobs/s: 2.55 ms each (between the 10/s and 40/s rows, log scale) = 0.097 vCPU, which is 40% of
    // 0.243 vCPU = 430 MB: 512 MB, although 256 MB would dispatch 20 x 38 jobs/s in a burst
    expect(steadyCpuMsPerJob(38.05, measured)).toBeCloseTo(2.554, 2)
    expect(recommendedScanMemoryMb({ jobsPerMonth: 100e6, mode: 'continuous' }, measured)).toBe(512)
    expect(streamCpuShare(512, 38.05, measured)).toBeLessThanOrEqual(STREAM_CPU_SHARE)
    expect(streamCpuShare(384, 38.05, measured)).toBeGreaterThan(STREAM_CPU_SHARE)
    // the burst rule binds when a burst is expensive: 1 ms a job needs 0.76 vCPU for 20 x 38 jobs/s
    const costlyBurst = { ...measured, scanCpuMsPer1000Jobs: 1_000 }
    expect(recommendedScanMemoryMb({ jobsPerMonth: 100e6, mode: 'continuous' }, costlyBurst)).toBe(1769)
    // beyond the fastest row its figure holds; past one vCPU: the largest size (more shards and scanners go further)
    expect(steadyCpuMsPerJob(1_000, measured)).toBe(1.6)
    expect(recommendedScanMemoryMb({ jobsPerMonth: 1e12, mode: 'continuous' }, measured)).toBe(1769)
    const auto = bill({ ...base, scanMemoryMb: 'auto', jobsPerMonth: 100e6 }, measured)
    expect(item(auto, 'Scan Lambda compute')!.item).toContain('512 MB, recommended')
  })

  it('sizes the burst rule from the measured sizes around it, warm in continuous mode and fresh on demand', () => {
    // prepare: fresh and warm CPU per 1,000 jobs measured at 128 and 256 MB (a small size pays more a job)
    const m = {
      ...measured,
      scanBurstBySize: [
        { memoryMb: 256, freshCpuMsPer1000: 150, warmCpuMsPer1000: 110 },
        { memoryMb: 128, freshCpuMsPer1000: 200, warmCpuMsPer1000: 150 },
      ],
      scanWindowedCpuMsPerJob: [{ jobsPerSec: 40, windowMs: 1_000, cpuMsPerJob: 0.5 }],
    }
    const windowed = { jobsPerMonth: 100e6, mode: 'continuous', windowMs: 1_000 } as const
    // act / assess: 192 MB lies halfway: 130 warm, 175 fresh; outside the measured sizes, the nearest one's figure
    expect(burstCpuMsPer1000(m, 'continuous', 192)).toBeCloseTo(130, 6)
    expect(burstCpuMsPer1000(m, 'on-demand', 192)).toBeCloseTo(175, 6)
    expect(burstCpuMsPer1000(m, 'continuous', 1_024)).toBe(110)
    expect(burstCpuMsPer1000(m, 'on-demand', 100)).toBe(200)
    // 192 MB (0.1085 vCPU) drains 835 jobs/s warm and 620 fresh
    expect(scanCapacityPerSec(192, m, 'continuous')).toBeCloseTo(835, 0)
    expect(scanCapacityPerSec(192, m, 'on-demand')).toBeCloseTo(620, 0)
    // 100M a month needs 761 jobs/s in a burst: 192 MB warm; with fresh figures only, 224 MB (0.1266 vCPU / 0.1625)
    expect(recommendedScanMemoryMb(windowed, m)).toBe(192)
    const freshOnly = m.scanBurstBySize.map(({ memoryMb, freshCpuMsPer1000 }) => ({ memoryMb, freshCpuMsPer1000 }))
    expect(recommendedScanMemoryMb(windowed, { ...m, scanBurstBySize: freshOnly })).toBe(224)
    const lines = bill({ ...base, ...windowed, scanMemoryMb: 'auto', enqueue: 'direct' }, m)
    expect(item(lines, 'Scan Lambda compute')!.item).toContain('192 MB, recommended')
    // without sized runs: the one median
    expect(burstCpuMsPer1000(measured, 'continuous', 192)).toBe(100)
  })

  it('starts the scan size at 128 MB only with a dispatch window of at least the measured 1 s', () => {
    expect(scanMemoryFloorMb('continuous', 1_000)).toBe(128)
    expect(scanMemoryFloorMb('continuous', 999)).toBe(256)
    expect(scanMemoryFloorMb('continuous')).toBe(256)
    expect(scanMemoryFloorMb('on-demand', 30_000)).toBe(512)
    // nothing scheduled: the floor itself
    const m = { ...measured, scanWindowedCpuMsPerJob: [{ jobsPerSec: 40, windowMs: 1_000, cpuMsPerJob: 0.5 }] }
    expect(recommendedScanMemoryMb({ jobsPerMonth: 0, mode: 'continuous', windowMs: 1_000 }, m)).toBe(128)
    expect(recommendedScanMemoryMb({ jobsPerMonth: 0, mode: 'continuous', windowMs: 500 }, m)).toBe(256)
  })

  it("scales the stream figures to the packaged function's own, keeping their shape over the rate", () => {
    // the packaged function measured 3.83 ms a job at 38.05/s, 1.5 x what the rows give there
    const level = { ...measured, scanStreamCpuMsPerJob: { jobsPerSec: 38.05, cpuMsPerJob: 3.831 } }
    expect(steadyCpuMsPerJob(38.05, level)).toBeCloseTo(3.831, 3)
    expect(steadyCpuMsPerJob(160, level)).toBeCloseTo(1.6 * 1.5, 2)
    expect(steadyCpuMsPerJob(5, level)).toBeCloseTo(4 * 1.5, 2)
    // 38 jobs/s x 3.83 ms = 0.146 vCPU, 40% of 0.364 vCPU = 645 MB: 768 MB
    expect(recommendedScanMemoryMb({ jobsPerMonth: 100e6, mode: 'continuous' }, level)).toBe(768)
  })

  it('names the DUE_BUCKETS that keeps ~64 pending jobs per bucket, never below the default', () => {
    expect(dueBucketsFor(0)).toBe(16_384)
    expect(dueBucketsFor(1_000_000)).toBe(16_384)
    expect(dueBucketsFor(1_100_000)).toBe(32_768)
    expect(dueBucketsFor(3_287_671)).toBe(65_536)
    const lines = bill({ ...base, redis: 'auto', jobsPerMonth: 100e6, replica: false }, measured)
    expect(item(lines, 'Redis: cache.')!.quantity).toContain('DUE_BUCKETS=65536')
  })
})
