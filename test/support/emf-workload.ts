// The EMF lines the scan function's metric code writes for a busy workload: the real ScanMetrics, fed a window with
// every kind of event (jobs sent to several target queues, released, dead-lettered, Redis errors, a memory reading
// with maxmemory, the CPU share on Lambda, SQS requests). What it writes is what CloudWatch would turn into metrics:
// test/support/metric-check.ts compares the alarms and the dashboard with it. (The API writes none: its requests and
// errors are AWS's own metrics.)
import { vi } from 'vitest'
import { CpuShareMeter } from '../../src/scan/observe/cpu-share'
import { ScanMetrics } from '../../src/scan/observe/metrics'
import type { Json } from './cfn-template'

const quiet = { info() {}, warn() {}, error() {} }

/** Runs `work` and returns the EMF lines it wrote on stdout (other output passes through). */
export async function captureEmf(work: () => Promise<void>): Promise<Json[]> {
  const lines: Json[] = []
  const write = process.stdout.write.bind(process.stdout)
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: Json, ...rest: Json[]) => {
    const text = String(chunk)
    if (!text.startsWith('{"_aws"')) return write(chunk, ...rest)
    for (const l of text.trim().split('\n')) lines.push(JSON.parse(l))
    return true
  })
  try {
    await work()
  } finally {
    spy.mockRestore()
  }
  return lines
}

/** Two windows of a busy scan over `queues`, the first with every kind of event. */
export async function busyScanWindows(serviceName: string, queues: string[]): Promise<void> {
  let cpu = 0
  let wall = 0
  let requests = 0
  const metrics = new ScanMetrics({
    serviceName,
    loops: 2,
    readBacklog: async () => ({
      pending: Object.fromEntries(queues.map((q, i) => [q, 100 * (i + 1)])),
      earliestDueMs: Date.now() - 5_000,
    }),
    redisNow: () => Date.now(),
    readMemory: () => ({
      node: 'primary',
      usedBytes: 700_000_000,
      maxBytes: 1_000_000_000,
      percent: 70,
      policy: 'noeviction',
    }),
    takeSqsRequests: () => {
      const taken = requests
      requests = 0
      return taken
    },
    // As on Lambda at 512 MB: 150 CPU ms per 1,000 ms of wall time.
    cpuShare: new CpuShareMeter(512, { cpuMs: () => (cpu += 150), wallMs: () => (wall += 1_000) }),
    logger: quiet,
    intervalMs: 3_600_000,
  })
  metrics.start()
  for (const [i, queue] of queues.entries()) {
    for (let n = 0; n < 250; n++) metrics.sent(queue, (n * 7) % 900)
    metrics.released(queue, i + 1)
    metrics.dead(queue, i)
  }
  requests += 75
  metrics.redisError()
  metrics.slept(400)
  await metrics.flush()
  await metrics.stop()
}
