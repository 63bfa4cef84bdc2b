// `npm run bench:replication`: what REDIS_WAIT_REPLICAS costs an API write. A primary with one replica and three sentinels
// (local/redis-sentinel.ts); the engine connects through Sentinel. Enqueue latency (one call in flight, and 16) with
// WAIT for 0 and 1 replicas and with the default (auto: one replica when the primary has one), and on a single node
// (no replica) with 0 and auto, in alternating rounds so all see the same machine load; medians over the rounds.
import { loadConfig } from '../src/config'
import { createEngine, type Engine } from '../src/store/engine'
import { startSentinelSetup } from '../local/redis-sentinel'
import { startRedis } from '../local/redis-server'
import { jobId, PAYLOAD_JSON, TARGET } from './data'
import { inFlight, median, percentiles } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'
import { runMain } from './main'

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
      due: { delayMs: 3_600_000 },
    })
    ms.push(performance.now() - t)
  })
  const p = percentiles(ms)
  return { p50: p.p50, p99: p.p99, perSec: CALLS / ((performance.now() - started) / 1000) }
}

/** The settings compared: where the engine connects, and REDIS_WAIT_REPLICAS (unset: the default, auto). */
interface Variant {
  label: string
  redis: Record<string, string>
  wait?: string
}

async function main() {
  const setup = await startSentinelSetup({ replicas: 1, sentinels: 3 })
  const single = await startRedis()
  const replicated = { REDIS_SENTINELS: setup.sentinels.join(','), REDIS_SENTINEL_MASTER: setup.masterName }
  const variants: Variant[] = [
    { label: 'with a replica, REDIS_WAIT_REPLICAS=0', redis: replicated, wait: '0' },
    { label: 'with a replica, default (auto)', redis: replicated },
    { label: 'with a replica, REDIS_WAIT_REPLICAS=1', redis: replicated, wait: '1' },
    { label: 'single node, REDIS_WAIT_REPLICAS=0', redis: { REDIS_URL: single.url }, wait: '0' },
    { label: 'single node, default (auto)', redis: { REDIS_URL: single.url } },
  ]
  const engines = variants.map((v, i) =>
    createEngine(
      loadConfig({
        ...v.redis,
        ...(v.wait === undefined ? {} : { REDIS_WAIT_REPLICAS: v.wait }),
        QUEUES: `${TARGET}=http://127.0.0.1:9/000000000000/${TARGET}`,
        KEY_PREFIX: `wait${i}`,
      }),
      { logger: { info() {}, warn() {}, error: console.error } },
    ),
  )
  try {
    const rows: Row[] = []
    for (const concurrency of [1, 16]) {
      const results: { p50: number; p99: number; perSec: number }[][] = variants.map(() => [])
      for (let r = 0; r < ROUNDS; r++) {
        for (const [i, engine] of engines.entries()) {
          results[i]!.push(await round(engine, `c${concurrency}-r${r}-v${i}`, concurrency))
        }
      }
      const med = (i: number, k: 'p50' | 'p99' | 'perSec') => median(results[i]!.map((x) => x[k]))
      const at = `enqueue, ${concurrency} in flight`
      for (const [i, v] of variants.entries()) {
        rows.push({ measure: `${at}, ${v.label}: p50 / p99`, value: `${ms3(med(i, 'p50'))} / ${ms3(med(i, 'p99'))}` })
        rows.push({ measure: `${at}, ${v.label}: throughput`, value: fmt.rate(med(i, 'perSec')) })
      }
      rows.push({
        measure: `${at}, with a replica: throughput default / 0`,
        value: fmt.pct(med(1, 'perSec') / med(0, 'perSec')),
      })
      rows.push({
        measure: `${at}, single node: throughput default / 0`,
        value: fmt.pct(med(4, 'perSec') / med(3, 'perSec')),
      })
    }
    console.log(printTable(rows))
    console.log(`medians of ${ROUNDS} alternating rounds of ${CALLS} enqueues; ${new Date().toISOString()}`)
  } finally {
    await Promise.all(engines.map((e) => e.close()))
    await setup.stop()
    await single.stop()
  }
}

runMain(main)
