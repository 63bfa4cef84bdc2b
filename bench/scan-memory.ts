// `npm run bench:scan-memory [-- --jobs N]`: how much memory the scan function uses, to choose its memory size
// (docs/cost.md "Right-sizing"). The packaged scan bundle runs in a fresh Node process, as Lambda's runtime runs it:
// module load, then one invocation that drains N due jobs into the local SQS endpoint (on-demand mode, so the
// invocation ends once nothing is due). The child reports its resident set after the module load and its peak
// (VmHWM), which is what Lambda's "Max Memory Used" measures, less the runtime client's own few MB, and how much of
// the V8 heap was still in use: a burst grows the heap because collection is lazy while memory is plentiful.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { createEngine } from '../src/store/engine'
import { benchJob, jobId } from './data'
import { flush, startBenchEnv, type BenchEnv } from './env'
import { bundlesIn, packageHere } from './packaged'
import { inFlight } from '../devkit/stats'
import { runMain } from './main'

const jobsArg = process.argv.indexOf('--jobs')
const JOBS = jobsArg > 0 ? Number(process.argv[jobsArg + 1]) : 20_000
/**
 * Function memory sizes to try. Node sizes its heap from the machine's memory, not the function's: each run caps the
 * V8 old generation at 80% of the size, so the garbage collector works as hard as it would in that function.
 * Unlimited: what the process takes when nothing presses it.
 */
const SIZES_MB = [128, 256, 512, 0]

/** Runs in the child: load the handler, invoke it once, print the resident set figures as JSON. */
const CHILD = `
const rssMb = () => process.memoryUsage().rss / 2 ** 20
const peakMb = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]) / 1024
const t = performance.now()
const { handler } = require(process.env.BUNDLE)
const loaded = { loadMs: performance.now() - t, rssAfterLoadMb: rssMb() }
const deadline = Date.now() + 120000
handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, {
  awsRequestId: 'bench', functionName: 'scan', getRemainingTimeInMillis: () => deadline - Date.now(),
}).then((report) => {
  const heap = process.memoryUsage()
  process.stdout.write(JSON.stringify({ ...loaded, peakRssMb: peakMb(), rssAtEndMb: rssMb(), heapTotalMb: heap.heapTotal / 2 ** 20,
    heapUsedMb: heap.heapUsed / 2 ** 20, dispatched: report.dispatched }))
  process.exit(0)
}, (e) => { console.error(e); process.exit(1) })
`

async function main() {
  const env = await startBenchEnv()
  const packaged = packageHere()
  try {
    const bundle = bundlesIn(packaged).get('scan')
    if (!bundle) throw new Error('no scan bundle in the package')
    for (const mb of SIZES_MB) await drainIn(env, bundle, mb)
  } finally {
    rmSync(packaged, { recursive: true, force: true })
    await env.stop()
  }
}

async function drainIn(env: BenchEnv, bundle: string, mb: number) {
  await flush(env.admin)
  const queue = await env.queue('scan-memory')
  try {
    const engine = createEngine(env.config(queue.url))
    const jobs = Array.from({ length: JOBS }, (_, i) => benchJob(jobId('sm', i), { delayMs: 0 }))
    await inFlight(Math.ceil(JOBS / 100), 8, async (b) => {
      for (const r of await engine.store.enqueueMany(jobs.slice(b * 100, b * 100 + 100)))
        if (r instanceof Error) throw r
    })
    await engine.close()
    const heapCap = mb ? [`--max-old-space-size=${Math.floor(mb * 0.8)}`] : []
    const out = execFileSync(process.execPath, [...heapCap, '-e', CHILD], {
      encoding: 'utf8',
      env: {
        ...process.env,
        BUNDLE: bundle,
        NODE_PATH: resolve(process.cwd(), 'node_modules'),
        REDIS_URL: env.redis.url,
        SQS_ENDPOINT: env.sqs.endpoint,
        QUEUES: `bench=${queue.url}`,
        AWS_REGION: 'us-east-1',
        SCAN_MODE: 'on-demand',
        ON_DEMAND_LINGER_MS: '200',
        POWERTOOLS_METRICS_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        NODE_OPTIONS: '--enable-source-maps',
      },
    })
    const r = JSON.parse(out) as Record<string, number>
    if (r.dispatched !== JOBS) throw new Error(`the scan dispatched ${r.dispatched} of ${JOBS} jobs`)
    console.log(
      `${mb ? `${mb} MB function (heap capped at ${Math.floor(mb * 0.8)} MB)` : 'no cap'}: ${JOBS.toLocaleString('en-US')} ` +
        `jobs drained in one invocation; RSS after module load ${r.rssAfterLoadMb!.toFixed(0)} MB, ` +
        `peak ${r.peakRssMb!.toFixed(0)} MB, at the end ${r.rssAtEndMb!.toFixed(0)} MB (V8 heap ${r.heapTotalMb!.toFixed(0)} MB, ` +
        `${r.heapUsedMb!.toFixed(0)} MB of it in use)`,
    )
  } finally {
    await queue.remove()
  }
}

runMain(main)
