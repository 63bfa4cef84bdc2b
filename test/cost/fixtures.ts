// The cost model's inputs the cost tests share: measured figures of a plausible deployment (not this machine's), a
// 10M-jobs scenario, and two readers of a bill.
import type { bill, Measured, Scenario } from '../../tools/cost/model'

export const measured: Measured = {
  bytesPerJob200: 335,
  receiptBytes: [
    { perShardHour: 1_000, bytes: 150 },
    { perShardHour: 100_000, bytes: 75 },
    { perShardHour: 500_000, bytes: 85 },
  ],
  scanCpuMsPer1000Jobs: 100,
  scanSteadyCpuMsPerJob: [
    { jobsPerSec: 160, cpuMsPerJob: 1.6 },
    { jobsPerSec: 10, cpuMsPerJob: 4 },
    { jobsPerSec: 40, cpuMsPerJob: 2.5 },
  ],
  apiWallMsPerRequest: 0.2,
  apiCpuMsPerRequest: 0.1,
  apiWallMsPerBatch100: 5,
  apiCpuMsPerBatch100: 3,
  idleRedisCommandsPerSec: 4,
  emptyTickActiveS: 0.01,
  startedJobActiveS: 1,
  continuousInvocationS: 66,
  observability: {
    idle: { metrics: 1, ingestBytes: 250 },
    pending1: { metrics: 4, ingestBytes: 500 },
    pending3: { metrics: 8, ingestBytes: 800 },
    busy1: { metrics: 10, ingestBytes: 1_100 },
    busy3: { metrics: 14, ingestBytes: 1_700 },
    runLineIdleBytes: 680,
    runLineBusyBytes: 830,
    platformBytes: 350,
    accessLogBytes: 420,
  },
}
export const base: Scenario = {
  jobsPerMonth: 10_000_000,
  enqueue: 'api',
  mode: 'continuous',
  scanMemoryMb: 512,
  apiMemoryMb: 512,
  payloadBytes: 200,
  waitHours: 24,
  windowMs: 0,
  redis: 'serverless',
  egress: 'endpoints',
  endpointAzs: 1,
}
export const item = (lines: ReturnType<typeof bill>, prefix: string) => lines.find((l) => l.item.startsWith(prefix))
export const total = (lines: ReturnType<typeof bill>) => lines.reduce((a, l) => a + l.usd, 0)
