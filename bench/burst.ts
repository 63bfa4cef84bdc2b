// A burst: N jobs due at the same millisecond. The figure is how long after that instant the last one is in SQS,
// and the drain rate (N / that time) as a share of the raw SendMessageBatch rate measured by raw-sqs.ts: the
// scanner's claims, message building and acks should cost little next to the sends themselves.
import type { NewJob } from '../src/store/job-store'
import { benchJob, jobId } from './data'
import type { BenchEnv } from './env'
import { runScanner } from './scan-run'
import { inFlight } from '../devkit/stats'

export interface BurstResult {
  lastInSqsMs: number
  drainPerSec: number
  inQueue: number
  sent: number
  claims: number
  /** > 0 when the enqueue was still running at the due time (a loaded machine): the drain is timed from its end. */
  enqueuedLateMs: number
}

export async function measureBurst(env: BenchEnv, jobs: number, rep: number): Promise<BurstResult> {
  let enqueuedLateMs = 0
  const run = await runScanner(
    env,
    'burst',
    async (store) => {
      // Due 5 s from now: enqueueing 20,000 takes 0.5-3 s on this machine depending on the neighbours' load.
      const at = Date.now() + 5_000
      const all: NewJob[] = Array.from({ length: jobs }, (_, i) => benchJob(jobId(`b${rep}`, i), { atMs: at }))
      await inFlight(Math.ceil(jobs / 100), 8, async (b) => {
        for (const r of await store.enqueueMany(all.slice(b * 100, b * 100 + 100))) if (r instanceof Error) throw r
      })
      enqueuedLateMs = Math.max(0, Date.now() - at)
      if (enqueuedLateMs) console.error(`  burst: enqueue finished ${enqueuedLateMs} ms after the jobs were due`)
      return jobs
    },
    60_000,
  )
  const last = Math.max(...run.lateness)
  // Had the enqueue not finished by the due time, the drain could not start before it did: time it from then.
  const drainMs = last - enqueuedLateMs
  return {
    lastInSqsMs: last,
    drainPerSec: run.lateness.length / (drainMs / 1000),
    inQueue: run.inQueue,
    sent: run.lateness.length,
    claims: run.claims,
    enqueuedLateMs,
  }
}
