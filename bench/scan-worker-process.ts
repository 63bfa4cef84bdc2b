// One scan worker as Lambda would run it, on this machine: the scan function's bundle in a fresh Node process, inside
// a cgroup with the CPU share and memory of a Lambda size (bench/cgroup.ts), started with the Node flags Lambda's
// own bootstrap gives a function of that size (young and old generation sizes from its memory), handed a worker's
// event (src/scan/fan-out.ts) at a given instant. Used by bench/burst-scale.ts.
import { spawn } from 'node:child_process'
import { build } from 'esbuild'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
// @ts-expect-error plain ESM helper without types
import { lambdaBundle } from '../scripts/lambda-bundle.mjs'
import { LambdaCgroup } from './cgroup'

/**
 * The memory flags of Lambda's Node.js bootstrap for a function of `mb` MB (the runtime's `bootstrap` script: a tenth
 * of the memory for the young generation, split in two semi-spaces, the rest for the old one). Without them V8 sizes
 * its young generation from the machine, and a scanner's garbage collection costs differ from Lambda's.
 */
export function lambdaNodeArgs(mb: number): string[] {
  const newSpace = Math.floor(mb / 10)
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${mb - newSpace}`]
}

/** Bundles the scan function as Lambda runs it (Lua inlined, node_modules outside), from `root` (a source tree). */
export async function bundleScanFunction(root: string, outfile: string): Promise<string> {
  mkdirSync(resolve(outfile, '..'), { recursive: true })
  await build({
    ...lambdaBundle,
    entryPoints: [join(root, 'functions/scan.ts')],
    outfile,
    logLevel: 'warning',
    absWorkingDir: root,
  })
  return outfile
}

// The child: loads the bundle (its module scope connects to Redis and builds the SQS client), waits for START_AT, runs
// the handler with a worker's event, and writes its report with its own CPU time from the start to the end (module
// load and connections left out: what draining costs).
const CHILD = `
const fs = require('fs')
const { handler } = require(process.env.BUNDLE)
// ns this process's threads spent runnable but waiting for a core (the second field of each task's schedstat).
const waitNs = () => fs.readdirSync('/proc/self/task').reduce((n, t) => {
  try { return n + Number(fs.readFileSync('/proc/self/task/' + t + '/schedstat', 'utf8').split(' ')[1]) } catch { return n }
}, 0)
;(async () => {
  const deadline = Number(process.env.DEADLINE)
  const startAt = Number(process.env.START_AT)
  while (Date.now() < startAt) await new Promise((r) => setTimeout(r, 5))
  const t = Date.now()
  const cpu0 = process.cpuUsage()
  const wait0 = waitNs()
  const report = await handler({ source: 'sdq.scan-worker', 'detail-type': 'Scan Worker', deadline, startedBy: 'bench', worker: Number(process.env.WORKER) }, {
    awsRequestId: 'bench-' + process.env.WORKER, functionName: 'scan', getRemainingTimeInMillis: () => deadline + 5000 - Date.now(),
  })
  const cpu = process.cpuUsage(cpu0)
  const waitMs = (waitNs() - wait0) / 1e6
  fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ ...report, startedAt: t, endedAt: Date.now(), drainCpuMs: (cpu.user + cpu.system) / 1000, waitMs }))
  process.exit(0)
})().catch((e) => { console.error(e); process.exit(1) })
`

export interface WorkerResult {
  dispatched: number
  drained: boolean
  startedAt: number
  endedAt: number
  /** The process's CPU from its start instant to its end (every thread: JIT and GC included). */
  drainCpuMs: number
  /**
   * From its start instant to its end, how long its threads were runnable but waited for a core (schedstat): the
   * machine's other work, or its own cgroup's quota (throttled), kept it from running.
   */
  waitMs: number
  /** The cgroup's CPU: the whole process, module load and connections included. */
  cpuMs: number
  /** Scheduler periods in which the cgroup was throttled (it wanted more than its share). */
  throttledPeriods: number
  periods: number
}

export interface WorkerOptions {
  bundle: string
  mb: number
  worker: number
  startAt: number
  deadline: number
  env: Record<string, string>
  /** Directory for a V8 CPU profile of the process (--cpu-prof), or none. */
  cpuProfDir?: string
}

/** Runs one worker process to its end and returns its report. */
export async function runScanWorker(o: WorkerOptions): Promise<WorkerResult> {
  const tag = `sdq-burst-scale-${process.pid}-${o.worker}`
  const resultFile = join(tmpdir(), `${tag}.json`)
  rmSync(resultFile, { force: true })
  const group = new LambdaCgroup(tag, o.mb, 100)
  try {
    const prof = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : []
    const { command, args } = group.wrap(process.execPath, [...lambdaNodeArgs(o.mb), ...prof, '-e', CHILD])
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...o.env,
        BUNDLE: o.bundle,
        RESULT_FILE: resultFile,
        NODE_PATH: resolve(process.cwd(), 'node_modules'),
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(o.mb),
        START_AT: String(o.startAt),
        DEADLINE: String(o.deadline),
        WORKER: String(o.worker),
      },
    })
    const code = await new Promise<number | null>((done, fail) => {
      child.once('error', fail)
      child.once('exit', (c) => done(c))
    })
    if (code !== 0) throw new Error(`worker ${o.worker} exited with ${code}`)
    const report = JSON.parse(readFileSync(resultFile, 'utf8'))
    const f = group.figures()
    return { ...report, cpuMs: f.cpuMs, throttledPeriods: f.throttledPeriods, periods: f.periods }
  } finally {
    rmSync(resultFile, { force: true })
    group.remove()
  }
}
