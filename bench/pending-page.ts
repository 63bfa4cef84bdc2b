// `npm run bench:pending-page [-- --jobs N]`: what a page of GET /jobs costs with many pending jobs. 1,000,000 jobs by
// default (200-byte payload, 20-char ids, due times spread over 30 days, shipped DUE_BUCKETS 16384, one shard; two
// queues, 1 job in 10 for "emails"), loaded through the real enqueue script on a private redis-server. Then pages of
// 50: the first page (what the dashboard shows), the 20 pages after it by cursor, pages starting 1%, 10% and 50% into
// the queue (a cursor at that due time), and the first page of the rarer queue. Per case: p50 / p99 / max of the
// call's time (ms) and its ZRANGE calls (the index's and each due bucket's).
import { startRedis } from '../local/redis-server'
import { loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { encodePendingCursor } from '../src/store/pending-page'
import { benchJob, jobId } from './data'
import { inFlight, percentiles } from './stats'
import { fmt, printTable, type Row } from './table'

const DAY_MS = 86_400_000
const at = process.argv.indexOf('--jobs')
const JOBS = at > 0 ? Number(process.argv[at + 1]) : 1_000_000
/** Calls per case: first pages are cheap; a page deep in the queue reads most buckets. */
const SAMPLES = 100
const DEEP_SAMPLES = 10

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
    // Count the bucket reads of each call: ZRANGE calls on due buckets, from the command stats.
    const zrangeCalls = async () =>
      Number(/cmdstat_zrange:calls=(\d+)/.exec(await engine.redis.info('commandstats'))?.[1] ?? 0)
    const measure = async (
      name: string,
      options: () => { queue?: string; cursor?: string | null },
      samples = SAMPLES,
    ) => {
      const times: number[] = []
      const reads: number[] = []
      for (let i = 0; i < samples; i++) {
        const before = await zrangeCalls()
        const t0 = performance.now()
        const page = await engine.store.listPending({ limit: 50, ...options() })
        times.push(performance.now() - t0)
        reads.push((await zrangeCalls()) - before)
        if (page.jobs.length !== 50) throw new Error(`${name}: a page of ${page.jobs.length}`)
      }
      const p = percentiles(times)
      const row = { name, p50: p.p50, p99: p.p99, max: p.max, reads: percentiles(reads).p50 }
      console.log(JSON.stringify(row))
      return row
    }
    const rows: Awaited<ReturnType<typeof measure>>[] = []
    rows.push(await measure('first page', () => ({})))
    let cursor: string | null = null
    // The walk: each sample takes the next page.
    const walk: number[] = []
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now()
      const page = await engine.store.listPending({ limit: 50, cursor })
      if (i > 0) walk.push(performance.now() - t0)
      cursor = page.cursor
    }
    const w = percentiles(walk)
    console.log(JSON.stringify({ walk: w }))
    rows.push({ name: 'pages 2-21, each from the last one’s cursor', p50: w.p50, p99: w.p99, max: w.max, reads: NaN })
    for (const share of [0.01, 0.1, 0.5]) {
      const c = encodePendingCursor({ dueMs: base + Math.floor(share * 30 * DAY_MS), id: '-' })
      rows.push(await measure(`a page ${share * 100}% into the queue`, () => ({ cursor: c }), DEEP_SAMPLES))
    }
    rows.push(await measure('first page of "emails" (1 job in 10)', () => ({ queue: 'emails' })))
    const table: Row[] = rows.map((r) => ({
      measure: r.name,
      value: `p50 ${fmt.ms(r.p50)}, p99 ${fmt.ms(r.p99)}, max ${fmt.ms(r.max)}`,
      ...(r.name === 'first page' ? { target: 'p99 <= 50 ms', met: r.p99 <= 50 } : {}),
      note: Number.isNaN(r.reads) ? '' : `${r.reads} ZRANGE calls (index + buckets)`,
    }))
    console.log(printTable(table))
  } finally {
    await engine.close()
    await redis.stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
