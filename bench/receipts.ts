// `npm run bench:receipts [-- --quick]`: what dispatch receipts cost. (1) Redis memory per receipt with 20-character
// ids and UUID message ids, at several receipts per shard and hour: N jobs enqueued, claimed and acked through the
// real scripts, then MEMORY USAGE of every receipt hash (plus its expiry entry) over N. (2) A burst drain (N jobs due
// at one instant, the shipped scanner against fauxqs) with DISPATCH_RECEIPT_TTL_MS=0 and at its default, interleaved
// repetition by repetition: the ack's extra work shows as a lower drain rate. (3) The same memory figure for
// occurrences of recurring schedules (20-character schedule ids, so 34-character occurrence ids "<id>@<ms>"): N
// schedules whose first occurrence is due, claimed and acked through lua/schedule-ack.lua (which writes the receipt
// and creates each next occurrence). Writes the `receipts` section of bench/results.json (the cost model bills the
// receipts' memory from it); `--quick` only prints.
import { sleep } from '../devkit/sleep'
import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Leases } from '../src/scan/claims/leases'
import { createEngine, type Engine } from '../src/store/engine'
import { ScheduleStore } from '../src/store/schedule-store'
import type { NewJob } from '../src/store/job-store'
import { benchJob, jobId, PAYLOAD_JSON, TARGET } from './data'
import { flush, startBenchEnv, type BenchEnv } from './env'
import { scanParts, startScanning } from './scanning'
import { inFlight, median } from '../devkit/stats'
import { runMain } from './main'

const quick = process.argv.includes('--quick')
const VOLUMES = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 500_000]
const BURST = quick ? 5_000 : 20_000
const REPS = quick ? 2 : 3
/** A hash's entry in Redis's table of expiries (dictEntry + pointer): MEMORY USAGE does not count it. */
const EXPIRY_ENTRY_BYTES = 32

/** N jobs (or occurrences of N schedules) due now, claimed and acked with their receipts: bytes per receipt. */
async function bytesPerReceipt(env: BenchEnv, n: number, kind: 'jobs' | 'occurrences' = 'jobs'): Promise<number> {
  await flush(env.admin)
  const engine = createEngine(env.config('http://unused'))
  try {
    if (kind === 'jobs') await enqueueDue(engine, n)
    else await putDueSchedules(engine, n)
    const leases = new Leases(
      engine.redis,
      {
        leaseMs: 600_000,
        maxAttempts: 10,
        backoffBaseMs: 1,
        backoffMaxMs: 1,
        receiptTtlMs: engine.config.dispatchReceiptTtlMs,
      },
      engine.keys,
    )
    const shard = engine.keys.shards[0]!
    // Occurrences come back every second (each ack creates the next): stop once n receipts are written.
    for (let acked = 0; acked < n; ) {
      const { jobs: claimed } = await leases.claim(shard, await leases.seedHints(shard, 1000), 1000)
      if (claimed.length === 0) {
        if (kind === 'jobs') break
        await sleep(50)
        continue
      }
      const acceptedAtMs = Date.now()
      acked += await leases.ack(
        shard,
        claimed.map((j) => ({ ...j, accepted: { messageId: randomUUID(), acceptedAtMs } })),
      )
    }
    let bytes = 0
    let receipts = 0
    for (const key of await engine.redis.keys(`${shard.tag}:receipts:*`)) {
      bytes += Number(await engine.redis.memory('USAGE', key, 'SAMPLES', '0')) + EXPIRY_ENTRY_BYTES
      receipts += await engine.redis.hlen(key)
    }
    return bytes / receipts
  } finally {
    await engine.close()
  }
}

async function enqueueDue(engine: Engine, n: number) {
  const jobs: NewJob[] = Array.from({ length: n }, (_, i) => benchJob(jobId('r', i), { delayMs: 0 }))
  await inFlight(Math.ceil(n / 500), 4, async (b) => {
    for (const r of await engine.store.enqueueMany(jobs.slice(b * 500, b * 500 + 500))) if (r instanceof Error) throw r
  })
}

/** Schedules every second: each one's next occurrence falls due within a second of its creation. */
async function putDueSchedules(engine: Engine, n: number) {
  const schedules = new ScheduleStore(engine.store.redis, engine.keys, engine.replication)
  const spec = { queue: TARGET, everyMs: 1_000, timezone: 'UTC', paused: false }
  await inFlight(n, 32, (i) => schedules.put({ id: jobId('s', i), spec, payloadJson: PAYLOAD_JSON }))
}

async function burstDrain(env: BenchEnv, ttlMs: number, rep: number): Promise<number> {
  const parts = await scanParts(env, `receipts-${ttlMs}`, { dispatchReceiptTtlMs: ttlMs })
  let sent = 0
  let last = 0
  const at = Date.now() + 4_000
  const scan = startScanning(parts, Date.now() + 120_000, {
    onSent: () => {
      sent++
      last = Date.now()
    },
  })
  try {
    await sleep(300)
    const all = Array.from({ length: BURST }, (_, i) => benchJob(jobId(`b${rep}${ttlMs ? 'r' : 'n'}`, i), { atMs: at }))
    await inFlight(Math.ceil(BURST / 100), 8, async (b) => {
      for (const r of await parts.engine.store.enqueueMany(all.slice(b * 100, b * 100 + 100)))
        if (r instanceof Error) throw r
    })
    const start = Math.max(at, Date.now())
    const deadline = Date.now() + 60_000
    while (sent < BURST && Date.now() < deadline) await sleep(20)
    return sent / ((last - start) / 1000)
  } finally {
    await scan.stop()
  }
}

async function main() {
  const env = await startBenchEnv()
  try {
    console.log(
      `mode ${quick ? 'quick' : 'full'}; redis ${(await env.admin.info('server')).match(/redis_version:(\S+)/)?.[1]}`,
    )
    const jobs: { perShardHour: number; bytes: number }[] = []
    const occurrences: { perShardHour: number; bytes: number }[] = []
    for (const n of VOLUMES) {
      jobs.push({ perShardHour: n, bytes: await bytesPerReceipt(env, n) })
      console.log(`receipts per shard-hour ${n}: ${jobs.at(-1)!.bytes.toFixed(1)} bytes per receipt`)
    }
    for (const n of VOLUMES.slice(0, 3)) {
      occurrences.push({ perShardHour: n, bytes: await bytesPerReceipt(env, n, 'occurrences') })
      console.log(`occurrence receipts per shard-hour ${n}: ${occurrences.at(-1)!.bytes.toFixed(1)} bytes per receipt`)
    }
    const off: number[] = []
    const on: number[] = []
    for (let rep = 0; rep < REPS; rep++) {
      if (rep % 2) on.push(await burstDrain(env, 86_400_000, rep))
      off.push(await burstDrain(env, 0, rep))
      if (rep % 2 === 0) on.push(await burstDrain(env, 86_400_000, rep))
      console.log(
        `burst of ${BURST} rep ${rep + 1}: receipts off ${off.at(-1)!.toFixed(0)}/s, on ${on.at(-1)!.toFixed(0)}/s`,
      )
    }
    const ratios = on.map((r, i) => r / off[i]!)
    console.log(
      `burst drain: receipts off ${median(off).toFixed(0)}/s, on ${median(on).toFixed(0)}/s, ratio on/off ${median(ratios).toFixed(2)}`,
    )
    // The cost model bills the receipts' memory from these (tools/cost/model.ts); a quick run does not replace them.
    if (!quick) {
      const file = resolve(process.cwd(), 'bench/results.json')
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const receipts = { bytesPerReceipt: jobs, occurrenceBytesPerReceipt: occurrences, burstOnOff: median(ratios) }
      writeFileSync(file, `${JSON.stringify({ ...all, receipts }, null, 2)}\n`)
    }
  } finally {
    await env.stop()
  }
}

runMain(main)
