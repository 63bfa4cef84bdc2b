// The EMF lines the scan function's and the API's metric code write for a busy workload: the real ScanMetrics and
// the real request-metrics middleware, fed a window with every kind of event (jobs sent to several target queues,
// released, dead-lettered, Redis errors, a memory reading with maxmemory, the CPU share on Lambda, SQS requests) and
// a request on every API route with 2xx, 4xx and 5xx answers. What they write is what CloudWatch would turn into
// metrics: test/support/metric-check.ts compares the alarms and the dashboard with it.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { vi } from 'vitest'
import { requestMetrics } from '../../src/api/request-metrics'
import { ROUTES } from '../../src/api/router'
import { CpuShareMeter } from '../../src/scan/cpu-share'
import { ScanMetrics } from '../../src/scan/metrics'
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

/** A request on every route of the API with a 2xx, a 4xx and a 5xx answer, and one on no route. */
export async function busyApiRequests(serviceName: string): Promise<void> {
  const middleware = requestMetrics(serviceName)
  const event = (method: string, path: string): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: '$default',
      rawPath: path,
      rawQueryString: '',
      headers: {},
      requestContext: { http: { method, path } },
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2
  const calls: [string, string][] = ROUTES.map((r) => {
    const [method, path] = r.key.split(' ') as [string, string]
    return [method, path.replace('{id}', 'order-42')]
  })
  calls.push(['GET', '/no-such-route'])
  for (const [method, path] of calls)
    for (const statusCode of [200, 404, 500]) {
      const request = { event: event(method, path), response: { statusCode }, context: {}, error: null, internal: {} }
      await middleware.after!(request as Json)
    }
}
