// Cost of an idle scanner: Redis commands per second while nothing is due in the next minute (jobs exist, due in an
// hour). A Lambda scanner runs all day, so this is the floor load it puts on Redis. Counted from INFO stats
// total_commands_processed, which includes commands run inside Lua scripts; the bench's own INFO calls are
// measured first with no scanner and subtracted. INFO commandstats gives the breakdown.
import { sleep } from '../devkit/sleep'
import { createEngine } from '../src/store/engine'
import { createSqsClient } from '../src/sqs/sqs-client'
import { benchJob, jobId } from './data'
import { commandCalls, flush, info, type BenchEnv } from './env'
import { startScanning } from './scanning'

export interface IdleResult {
  commandsPerSec: number
  seconds: number
  /** Per-second calls by command, the bench's INFO calls removed. */
  breakdown: Record<string, number>
}

async function snapshot(env: BenchEnv) {
  const total = Number((await info(env.admin, 'stats')).total_commands_processed)
  const calls = await commandCalls(env.admin)
  return { total, calls, at: performance.now() }
}

export async function measureIdle(env: BenchEnv, seconds: number): Promise<IdleResult> {
  await flush(env.admin)
  const queue = await env.queue('idle')
  const config = env.config(queue.url)
  const engine = createEngine(config)
  await engine.store.enqueueMany(
    Array.from({ length: 1_000 }, (_, i) => benchJob(jobId('i', i), { delayMs: 3_600_000 + i })),
  )
  // The bench's own cost: two INFO calls per snapshot, with nothing else talking to Redis.
  const a = await snapshot(env)
  await sleep(500)
  const b = await snapshot(env)
  const own = b.total - a.total

  const sqs = createSqsClient(config)
  const scan = startScanning({ engine, sqs, queue }, Date.now() + seconds * 1000 + 60_000)
  await sleep(2_000) // past the first claim and subscription
  const c = await snapshot(env)
  await sleep(seconds * 1000)
  const d = await snapshot(env)
  await scan.stop()

  const elapsed = (d.at - c.at) / 1000
  const breakdown: Record<string, number> = {}
  for (const [cmd, n] of Object.entries(d.calls)) {
    const delta = n - (c.calls[cmd] ?? 0) - (cmd === 'info' ? 2 : 0)
    if (delta > 0) breakdown[cmd] = delta / elapsed
  }
  return { commandsPerSec: (d.total - c.total - own) / elapsed, seconds: elapsed, breakdown }
}
