// A burst: N jobs due at the same millisecond. The figure is how long after that instant the last one is in SQS,
// and the drain rate (N / that time) as a share of the raw SendMessageBatch rate measured by raw-sqs.ts: the
// scanner's claims, message building and acks should cost little next to the sends themselves.
import type { NewJob } from '../src/store'
import { benchJob, jobId } from './data'
import type { BenchEnv } from './env'
import { runScanner } from './scan-run'
import { inFlight } from './stats'

export interface BurstResult {
  lastInSqsMs: number
  drainPerSec: number
  inQueue: number
  sent: number
  claims: number
}

export async function measureBurst(env: BenchEnv, jobs: number, rep: number): Promise<BurstResult> {
  const run = await runScanner(
    env,
    'burst',
    async (store) => {
      const at = Date.now() + 2_500
      const all: NewJob[] = Array.from({ length: jobs }, (_, i) => benchJob(jobId(`b${rep}`, i), { atMs: at }))
      await inFlight(Math.ceil(jobs / 100), 8, async (b) => {
        for (const r of await store.enqueueMany(all.slice(b * 100, b * 100 + 100))) if (r instanceof Error) throw r
      })
      if (Date.now() >= at) console.error('  burst: enqueue finished after the jobs were due')
      return jobs
    },
    60_000,
  )
  const last = Math.max(...run.lateness)
  return { lastInSqsMs: last, drainPerSec: run.lateness.length / (last / 1000), inQueue: run.inQueue, sent: run.lateness.length, claims: run.claims }
}
