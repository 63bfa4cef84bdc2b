// The scan function's metrics, read back from the EMF lines a real run writes on stdout: names, units, dimensions and
// values against what happened (jobs sent, their lateness, jobs dead-lettered, jobs still pending).
import { sleep } from '../../devkit/sleep'
import { afterAll, afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest'
import { loadConfig } from '../../src/config'
import { readBacklog } from '../../src/scan/observe/backlog'
import { createScanner } from '../../src/scan/create-scanner'
import { ScanMetrics } from '../../src/scan/observe/metrics'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { readWindows } from '../../src/scan/observe/run-log'
import type { Engine } from '../../src/store/engine'
import { job, testStore } from '../support/engine'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'
import { CpuShareMeter } from '../../src/scan/observe/cpu-share'

interface EmfLine {
  _aws: {
    Timestamp: number
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[]
  }
  [field: string]: unknown
}

const sqs = sqsClient()
let t: ReturnType<typeof testStore>
let engine: Engine
let ordersUrl: string
const quiet = { info() {}, warn() {}, error() {} }

// Each case its own keyspace and queue: a scanner sends everything due in its keyspace, so jobs a failing case left
// would be sent, counted and reported by the next case's scanner.
beforeEach(async () => {
  t = testStore()
  ordersUrl = (await createQueue(sqs, 'metrics-orders')).url
  const config = loadConfig({
    REDIS_URL: 'redis://unused',
    // "broken" points at a queue that does not exist: SQS refuses its jobs, and one attempt sends them to the dead set.
    QUEUES: JSON.stringify({ orders: ordersUrl, broken: `${inject('sqsEndpoint')}/000000000000/no-such-queue` }),
    SQS_ENDPOINT: inject('sqsEndpoint'),
    POLL_INTERVAL_MS: '50',
    MAX_DISPATCH_ATTEMPTS: '1',
  })
  engine = {
    config,
    keys: t.keys,
    redis: t.redis,
    store: t.store,
    replication: t.store.replication,
    close: async () => {},
  }
})
afterEach(async () => {
  vi.restoreAllMocks()
  await t.close()
})
afterAll(() => sqs.destroy())

/** Runs a scanner with metrics every 200 ms until `done`, collecting every EMF line it writes. */
async function scanWithMetrics(done: () => Promise<boolean>) {
  const out = createSqsClient(engine.config)
  const lines: EmfLine[] = []
  const write = process.stdout.write.bind(process.stdout)
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
    const text = String(chunk)
    if (text.startsWith('{"_aws"')) for (const l of text.trim().split('\n')) lines.push(JSON.parse(l))
    else return write(chunk, ...rest)
    return true
  })
  const late: number[] = []
  const { scanner, metrics, close } = createScanner(engine, out, {
    subscribe: false,
    logger: quiet,
    onSent: (_job, _at, lateMs) => void late.push(lateMs),
    metrics: { serviceName: 'sdq-test', intervalMs: 200 },
  })
  metrics!.start()
  const run = scanner.run(Date.now() + 20_000)
  const started = Date.now()
  // At least a second: several windows, not just the final one.
  while (!(await done()) || Date.now() - started < 1_000) await sleep(50)
  scanner.stop()
  const report = await run
  await metrics!.stop()
  await close()
  out.destroy()
  vi.restoreAllMocks()
  return { lines, late, report }
}

const withDimensions = (lines: EmfLine[], dims: string[]) =>
  lines.filter((l) => JSON.stringify(l._aws.CloudWatchMetrics[0]!.Dimensions) === JSON.stringify([dims]))
const sum = (lines: EmfLine[], name: string) => lines.reduce((n, l) => n + (Number(l[name]) || 0), 0)
const unitOf = (lines: EmfLine[], name: string) =>
  lines.flatMap((l) => l._aws.CloudWatchMetrics[0]!.Metrics).find((m) => m.Name === name)?.Unit

/** A clock that reads these CPU and wall times (ms), one per call. */
function fakeCpuClock(cpu: number[], wall: number[]) {
  return { cpuMs: () => cpu.shift()!, wallMs: () => wall.shift()! }
}

describe('scan metrics (EMF)', () => {
  it('report dispatched, dead-lettered and pending jobs per queue, and the lateness of what was sent', async () => {
    // prepare: 6 jobs due now for orders, 2 for a queue SQS refuses, 1 for orders an hour out
    for (let i = 0; i < 6; i++) await t.store.enqueue(job({ id: `m-ok-${i}`, queue: 'orders' }))
    for (let i = 0; i < 2; i++) await t.store.enqueue(job({ id: `m-bad-${i}`, queue: 'broken' }))
    await t.store.enqueue(job({ id: 'm-later', queue: 'orders', due: { delayMs: 3_600_000 } }))
    // act
    const { lines, late, report } = await scanWithMetrics(async () => (await t.store.stats()).dead === 2)
    // assess: what happened
    expect(report).toMatchObject({ dispatched: 6, dead: 2 })
    expect((await receiveAll(sqs, ordersUrl)).length).toBe(6)
    // every line: our namespace and the service dimension
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) {
      expect(l._aws.CloudWatchMetrics[0]!.Namespace).toBe('DelayQueue')
      expect(l.service).toBe('sdq-test')
    }
    const perQueue = withDimensions(lines, ['service', 'queue'])
    const orders = perQueue.filter((l) => l.queue === 'orders')
    const broken = perQueue.filter((l) => l.queue === 'broken')
    expect(sum(orders, 'Dispatched')).toBe(6)
    // counts that did not happen are left out, not published as 0 (each metric is billed per hour it appears)
    expect(orders.some((l) => 'DeadLettered' in l)).toBe(false)
    expect(sum(broken, 'Dispatched')).toBe(0)
    expect(sum(broken, 'DeadLettered')).toBe(2)
    // the last window sees what is left: the job an hour out
    expect(orders.at(-1)!.Pending).toBe(1)
    expect(broken.at(-1)!.Pending).toBe(0)
    for (const name of ['Dispatched', 'DeadLettered', 'Pending']) expect(unitOf(perQueue, name)).toBe('Count')

    const global = withDimensions(lines, ['service'])
    // one line per window: the run lasted > 1 s with 200 ms windows
    expect(global.length).toBeGreaterThanOrEqual(4)
    expect(global.some((l) => 'RedisErrors' in l)).toBe(false)
    // no total of the dispatched jobs: the dashboard sums the queues' (one metric less to pay for)
    expect(global.some((l) => 'Dispatched' in l)).toBe(false)
    expect(sum(global, 'DeadLettered')).toBe(2)
    // one SendMessageBatch per queue and shard: each shard's claim sends its orders jobs together and its refused
    // ones together (one shard: exactly 2); the windows add up to the run's count
    expect(report.sqsRequests).toBeGreaterThanOrEqual(2)
    expect(report.sqsRequests).toBeLessThanOrEqual(Math.min(8, 2 * t.keys.shards.length))
    expect(sum(global, 'SqsRequests')).toBe(report.sqsRequests)
    expect(unitOf(global, 'SqsRequests')).toBe('Count')
    for (const name of [
      'DispatchLatenessP50',
      'DispatchLatenessP99',
      'DispatchLatenessMax',
      'OldestDueAgeMs',
      'ScanActiveMs',
    ]) {
      expect(unitOf(global, name)).toBe('Milliseconds')
    }
    const withLateness = global.filter((l) => 'DispatchLatenessMax' in l)
    expect(Math.max(...withLateness.map((l) => Number(l.DispatchLatenessMax)))).toBe(Math.max(...late))
    for (const l of withLateness)
      expect(Number(l.DispatchLatenessP50)).toBeLessThanOrEqual(Number(l.DispatchLatenessMax))
    // Redis's memory, from the memory watch's reading at the start of the run: bytes in use; no percent, since this
    // redis-server has no maxmemory (the memory alarm then sees no data, never a misleading 0%)
    const memoryLines = global.filter((l) => 'RedisMemoryUsedBytes' in l)
    expect(memoryLines.length).toBeGreaterThan(0)
    expect(unitOf(global, 'RedisMemoryUsedBytes')).toBe('Bytes')
    expect(Number(memoryLines.at(-1)!.RedisMemoryUsedBytes)).toBeGreaterThan(100_000)
    expect(global.some((l) => 'RedisMemoryUsedPercent' in l)).toBe(false)
    // nothing due is left waiting at the end
    expect(global.at(-1)!.OldestDueAgeMs).toBe(0)
    for (const l of global.filter((g) => 'ScanActiveMs' in g)) expect(Number(l.ScanActiveMs)).toBeGreaterThanOrEqual(0)
  })

  it('keep the same windows in the run log that the dashboard reads', async () => {
    // prepare
    for (let i = 0; i < 3; i++) await t.store.enqueue(job({ id: `m-log-${i}`, queue: 'orders' }))
    const before = (await readWindows(t.redis, t.keys)).length
    // act
    const { lines } = await scanWithMetrics(async () => (await t.store.get('m-log-2')) === null)
    // assess
    const windows = (await readWindows(t.redis, t.keys)).slice(before)
    const global = withDimensions(lines, ['service'])
    expect(windows).toHaveLength(global.length)
    expect(windows.reduce((n, w) => n + w.dispatched, 0)).toBe(3)
    for (const [i, w] of windows.entries()) {
      expect(w.at).toBeGreaterThan(i ? windows[i - 1]!.at - 1 : 0)
      expect(w.lateness?.max ?? null).toBe(global[i]!.DispatchLatenessMax ?? null)
    }
  })

  it('report the fullest Redis primary as a percent of its maxmemory when it has one', async () => {
    // prepare: a reading as the memory watch makes it, of a primary with maxmemory
    const lines: EmfLine[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
      for (const l of String(chunk).trim().split('\n')) if (l.startsWith('{"_aws"')) lines.push(JSON.parse(l))
      return true
    })
    const reading = {
      node: 'primary',
      usedBytes: 912_000_000,
      maxBytes: 1_000_000_000,
      percent: 91.2,
      policy: 'noeviction',
    }
    const metrics = new ScanMetrics({
      serviceName: 'sdq-test',
      loops: 1,
      readBacklog: () => readBacklog(t.redis, t.keys),
      redisNow: () => Date.now(),
      readMemory: () => reading,
      // a 256 MB function (0.1447 vCPU) that used 29 ms of CPU in a second: 20% of its share
      cpuShare: new CpuShareMeter(256, fakeCpuClock([0, 29], [0, 1_000])),
      logger: quiet,
    })
    // act: a window in which a job was sent
    metrics.sent('orders', 5)
    await metrics.flush()
    vi.restoreAllMocks()
    // assess: the percent, and not the bytes as well (one metric is enough for the alarm and the graph)
    const global = withDimensions(lines, ['service'])
    expect(global).toHaveLength(1)
    expect(global[0]).toMatchObject({ RedisMemoryUsedPercent: 91.2 })
    expect(global[0]).not.toHaveProperty('RedisMemoryUsedBytes')
    expect(unitOf(global, 'RedisMemoryUsedPercent')).toBe('Percent')
    expect(global[0]!.ScanCpuSharePercent).toBeCloseTo(20.04, 1)
    expect(unitOf(global, 'ScanCpuSharePercent')).toBe('Percent')
  })
})
