// The custom metrics the scan function publishes per hour, counted by running its metric code (tools/cost/metrics.ts
// feeds the real ScanMetrics one window and reads its EMF lines back): the count the cost model bills, pinned per
// workload so that a new metric shows up here and in docs/cost.md before it shows up on the bill.
import { describe, expect, it } from 'vitest'
import { measureWindow } from '../../tools/cost/metrics'

const service = (name: string) => `${name}{service=serverless-delay-queue-prod}`
const perQueue = (name: string, queue: string) => `${name}{service=serverless-delay-queue-prod,queue=${queue}}`

describe('custom metrics per hour, from the metric code', () => {
  it('idle (nothing pending, nothing sent): only OldestDueAgeMs, which tells "idle" from "no scanner"', async () => {
    const idle = await measureWindow({ busyQueues: 0 })

    expect(idle.metrics).toEqual([service('OldestDueAgeMs')])
  })

  it('one busy queue: 8 for the scan and 2 for the queue (Dispatched, Pending)', async () => {
    const one = await measureWindow({ busyQueues: 1 })

    expect(one.metrics).toHaveLength(10)
    expect(one.metrics).toEqual(
      expect.arrayContaining([
        service('OldestDueAgeMs'),
        service('SqsRequests'),
        service('DispatchLatenessP99'),
        service('RedisMemoryUsedPercent'),
        service('ScanCpuSharePercent'),
        perQueue('Dispatched', 'queue-1'),
        perQueue('Pending', 'queue-1'),
      ]),
    )
  })

  it('3 busy queues: 2 more per queue (14)', async () => {
    const three = await measureWindow({ busyQueues: 3 })

    expect(three.metrics).toHaveLength(14)
    expect(three.emfBytes).toBeGreaterThan((await measureWindow({ busyQueues: 1 })).emfBytes)
  })
})
