// `npm run bench:pending-page [-- --jobs N]`: what a page of GET /jobs costs with many pending jobs. 1,000,000 jobs by
// default (200-byte payload, 20-char ids, due times spread over 30 days, shipped DUE_BUCKETS 16384, one shard; two
// queues, 1 job in 10 for "emails"), loaded through the real enqueue script on a private redis-server. Then pages of
// 50: the first page (what the dashboard shows); a walk through the whole queue by cursor, every page timed, reported
// for the pages at the start, the middle and the end (jobs 0, 500k and 999k before them); a page from a cursor
// whose walk is gone (expired, or an earlier page again) half way in, which rebuilds the walk's frontier; and the first
// page of the rarer queue. Per case: p50 / p99 / max of the call's time (ms) and its ZRANGE calls per page (the
// frontier's and each due bucket's), the most time Redis spent in scripts for one page of it (the walk's start and
// advance, the record heads), and the memory of a walk's frontier.
import { startRedis } from '../local/redis-server'
import { loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { cursorKeyOf } from '../src/store/cursor-key'
import { encodePendingCursor } from '../src/store/pending-cursor'
import { benchJob, jobId } from './data'
import { inFlight, percentiles } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'
import { runMain } from './main'

const DAY_MS = 86_400_000
const at = process.argv.indexOf('--jobs')
const JOBS = at > 0 ? Number(process.argv[at + 1]) : 1_000_000
/** Calls per case, and pages per window of the walk. */
const SAMPLES = 100
const REBUILD_SAMPLES = 10
const PAGE = 50

async function main() {
  const redis = await startRedis()
  const engine = createEngine(
    loadConfig({ REDIS_URL: redis.url, QUEUES: 'bench=http://127.0.0.1:9/bench,emails=http://127.0.0.1:9/emails' }),
  )
  try {
    const base = Date.now() + DAY_MS
    const started = performance.now()
    await inFlight(Math.ceil(JOBS / 1_000), 4, async (b) => {
      const list = []
      for (let i = b * 1_000; i < Math.min(JOBS, (b + 1) * 1_000); i++) {
        const slot = (i * 7_919) % JOBS
        const job = benchJob(jobId('p', i), { atMs: base + Math.floor((slot * 30 * DAY_MS) / JOBS) })
        list.push(i % 10 === 0 ? { ...job, queue: 'emails' } : job)
      }
      for (const r of await engine.store.enqueueMany(list)) if (r instanceof Error) throw r
    })
    console.log(`${JOBS} jobs loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    // Count the bucket reads of each call: ZRANGE calls (frontier and due buckets), from the command stats; and the
    // time Redis spent in scripts (the walk's start and advance, the record heads): what it blocks other clients for.
    const commandStats = async () => {
      const info = await engine.redis.info('commandstats')
      const usec = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=\\d+,usec=(\\d+)`).exec(info)?.[1] ?? 0)
      return {
        zrange: Number(/cmdstat_zrange:calls=(\d+)/.exec(info)?.[1] ?? 0),
        scriptMs: (usec('evalsha') + usec('eval')) / 1000,
      }
    }
    const zrangeCalls = async () => (await commandStats()).zrange
    type Case = { name: string; p50: number; p99: number; max: number; reads: number; scriptMs?: number }
    const rows: Case[] = []
    const measure = async (
      name: string,
      options: () => { queue?: string; cursor?: string | null },
      samples = SAMPLES,
    ) => {
      const times: number[] = []
      const reads: number[] = []
      const scripts: number[] = []
      for (let i = 0; i < samples; i++) {
        const before = await commandStats()
        const t0 = performance.now()
        const page = await engine.store.listPending({ limit: PAGE, ...options() })
        times.push(performance.now() - t0)
        const after = await commandStats()
        reads.push(after.zrange - before.zrange)
        scripts.push(after.scriptMs - before.scriptMs)
        if (page.jobs.length !== PAGE) throw new Error(`${name}: a page of ${page.jobs.length}`)
      }
      const p = percentiles(times)
      const row = {
        name,
        p50: p.p50,
        p99: p.p99,
        max: p.max,
        reads: percentiles(reads).p50,
        scriptMs: Math.max(...scripts),
      }
      console.log(JSON.stringify(row))
      rows.push(row)
    }
    await measure('first page', () => ({}))

    // The walk: every page from the previous one's cursor, to the end. Windows of SAMPLES pages are reported.
    const pages = Math.ceil(JOBS / PAGE)
    const windows = [0, Math.floor(pages / 2), pages - SAMPLES]
    const walkTimes: number[] = []
    const windowReads = new Map<number, number>()
    let cursor: string | null = null
    let listed = 0
    const walkStarted = performance.now()
    let frontierBytes = 0
    for (let n = 0; n < pages; n++) {
      const w = windows.find((start) => n === start || n === start + SAMPLES)
      if (w !== undefined) windowReads.set(n, await zrangeCalls())
      const t0 = performance.now()
      const page = await engine.store.listPending({ limit: PAGE, cursor })
      walkTimes.push(performance.now() - t0)
      listed += page.jobs.length
      cursor = page.cursor
      if (n === windows[1]) {
        const walk = /^w([^:]+):/.exec(Buffer.from(cursor!, 'base64url').toString())![1]!
        const key = engine.keys.shards[0]!.pendingWalk(walk)
        frontierBytes = Number(await engine.redis.memory('USAGE', key, 'SAMPLES', '0'))
      }
      if (!cursor) break
    }
    if (!windowReads.has(pages)) windowReads.set(pages, await zrangeCalls())
    if (listed !== JOBS) throw new Error(`the walk listed ${listed} of ${JOBS} jobs`)
    const walkAll = percentiles(walkTimes)
    console.log(
      JSON.stringify({
        walk: { pages: walkTimes.length, seconds: (performance.now() - walkStarted) / 1000, ...walkAll },
        frontierBytes,
      }),
    )
    for (const [i, start] of windows.entries()) {
      const p = percentiles(walkTimes.slice(start, start + SAMPLES))
      const reads = ((windowReads.get(start + SAMPLES) ?? NaN) - windowReads.get(start)!) / SAMPLES
      const at = ['the start', 'the middle', 'the end'][i]
      rows.push({ name: `pages ${start + 1}-${start + SAMPLES} of the walk (${at})`, ...p, reads })
    }
    rows.push({ name: `all ${walkTimes.length} pages of the walk`, ...walkAll, reads: NaN })
    // A cursor without a walk half way in (as after the walk expired, or an earlier page again): it rebuilds one.
    const half = encodePendingCursor(
      { walk: null, dueMs: base + Math.floor(0.5 * 30 * DAY_MS), id: '-' },
      await cursorKeyOf(engine.redis, engine.keys),
    )
    await measure('a page from a cursor whose walk is gone, half way in', () => ({ cursor: half }), REBUILD_SAMPLES)
    await measure('first page of "emails" (1 job in 10)', () => ({ queue: 'emails' }))
    console.log(`a walk's frontier: ${frontierBytes} bytes (MEMORY USAGE)`)
    // What starting a walk's frontier blocks Redis for: COPY of the shard's index, timed round trip.
    const shard = engine.keys.shards[0]!
    const copies: number[] = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      await engine.redis.copy(shard.index, shard.pendingWalk('bench-copy'), 'REPLACE')
      copies.push(performance.now() - t0)
    }
    await engine.redis.del(shard.pendingWalk('bench-copy'))
    const copy = percentiles(copies)
    rows.push({ name: `COPY of the index (${await engine.redis.zcard(shard.index)} buckets)`, ...copy, reads: NaN })
    const table: Row[] = rows.map((r) => ({
      measure: r.name,
      value: `p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}, max ${fmt.ms(r.max)}`,
      ...(r.name === 'first page' ? { target: 'p99 <= 50 ms', met: r.p99 <= 50 } : {}),
      note:
        (Number.isNaN(r.reads) ? '' : `${r.reads.toFixed(0)} ZRANGE calls per page (frontier + buckets)`) +
        (r.scriptMs === undefined ? '' : `; scripts at most ${r.scriptMs.toFixed(1)} ms of Redis per page`),
    }))
    console.log(printTable(table))
  } finally {
    await engine.close()
    await redis.stop()
  }
}

runMain(main)
