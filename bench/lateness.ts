// Dispatch lateness under a steady stream: N jobs due evenly over 10 s (2,000/s at full size), enqueued ahead of
// time into a scanner that is already running and asleep. Lateness comes from the scanner's onSent callback
// (see scan-run.ts), so it includes the claim, building the messages and the SendMessageBatch round trip.
import type { NewJob } from '../src/store/job-store'
import { benchJob, jobId } from './data'
import type { BenchEnv } from './env'
import { runScanner } from './scan-run'
import { inFlight, percentiles, type Percentiles } from '../devkit/stats'

export const SPREAD_MS = 10_000

export async function measureLateness(
  env: BenchEnv,
  jobs: number,
): Promise<Percentiles & { inQueue: number; claims: number }> {
  const run = await runScanner(
    env,
    'lateness',
    async (store) => {
      // Leave time to enqueue everything before the first one is due (0.5-3 s here, depending on the neighbours).
      const first = Date.now() + 5_000
      const all: NewJob[] = Array.from({ length: jobs }, (_, i) =>
        benchJob(jobId('l', i), { atMs: first + Math.floor((i * SPREAD_MS) / jobs) }),
      )
      await inFlight(Math.ceil(jobs / 100), 8, async (b) => {
        for (const r of await store.enqueueMany(all.slice(b * 100, b * 100 + 100))) if (r instanceof Error) throw r
      })
      if (Date.now() >= first) console.error('  lateness: enqueue finished after the first job was due')
      return jobs
    },
    SPREAD_MS + 30_000,
  )
  return { ...percentiles(run.lateness), inQueue: run.inQueue, claims: run.claims }
}
