// `npm run bench:wait`: what REDIS_WAIT_REPLICAS costs an API write. A primary with one replica and three sentinels
// (local/redis-sentinel.ts); the engine connects through Sentinel. Enqueue latency (one call in flight, and 16) with
// WAIT for 0 and 1 replicas, in alternating rounds so both see the same machine load; medians over the rounds.
import { loadConfig } from '../src/config'
import { createEngine, type Engine } from '../src/store/engine'
import { startSentinelSetup } from '../local/redis-sentinel'
import { jobId, PAYLOAD_JSON, TARGET } from './data'
import { inFlight, median, percentiles } from './stats'
import { fmt, printTable, type Row } from './table'

const ms3 = (ms: number) => `${ms.toFixed(3)} ms`

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 3 : 7
const CALLS = quick ? 1_000 : 3_000

async function round(
  engine: Engine,
  tag: string,
  concurrency: number,
): Promise<{ p50: number; p99: number; perSec: number }> {
  const ms: number[] = []
  const started = performance.now()
  await inFlight(CALLS, concurrency, async (i) => {
    const t = performance.now()
    await engine.store.enqueue({
      id: jobId(tag, i),
      queue: TARGET,
      payloadJson: PAYLOAD_JSON,
      schedule: { delayMs: 3_600_000 },
    })
    ms.push(performance.now() - t)
  })
  const p = percentiles(ms)
  return { p50: p.p50, p99: p.p99, perSec: CALLS / ((performance.now() - started) / 1000) }
}

async function main() {
  const setup = await startSentinelSetup({ replicas: 1, sentinels: 3 })
  const engines = [0, 1].map((n) =>
    createEngine(
      loadConfig({
        REDIS_SENTINELS: setup.sentinels.join(','),
        REDIS_SENTINEL_MASTER: setup.masterName,
        REDIS_WAIT_REPLICAS: String(n),
        QUEUES: `${TARGET}=http://127.0.0.1:9/000000000000/${TARGET}`,
        KEY_PREFIX: `wait${n}`,
      }),
    ),
  )
  try {
    const rows: Row[] = []
    for (const concurrency of [1, 16]) {
      const results: { p50: number; p99: number; perSec: number }[][] = [[], []]
      for (let r = 0; r < ROUNDS; r++) {
        for (const n of [0, 1]) results[n]!.push(await round(engines[n]!, `c${concurrency}-r${r}-w${n}`, concurrency))
      }
      const med = (n: number, k: 'p50' | 'p99' | 'perSec') => median(results[n]!.map((x) => x[k]))
      const at = `enqueue, ${concurrency} in flight`
      for (const n of [0, 1]) {
        rows.push({
          measure: `${at}, REDIS_WAIT_REPLICAS=${n}: p50 / p99`,
          value: `${ms3(med(n, 'p50'))} / ${ms3(med(n, 'p99'))}`,
        })
        rows.push({ measure: `${at}, REDIS_WAIT_REPLICAS=${n}: throughput`, value: fmt.rate(med(n, 'perSec')) })
      }
      rows.push({ measure: `${at}: throughput N=1 / N=0`, value: fmt.pct(med(1, 'perSec') / med(0, 'perSec')) })
    }
    console.log(printTable(rows))
    console.log(`medians of ${ROUNDS} alternating rounds of ${CALLS} enqueues; ${new Date().toISOString()}`)
  } finally {
    await Promise.all(engines.map((e) => e.close()))
    await setup.stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
