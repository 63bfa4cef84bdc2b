// One invocation (or two, the second warm) of the packaged scan function at a Lambda size, for bench:lambda-size:
// a fresh Node process in a cgroup with Lambda's CPU share and memory limit for the size (bench/cgroup.ts) and the V8
// flags Lambda's Node.js runtime sets for it loads the scan bundle and calls its handler, as Lambda would.
import { sleep } from '../devkit/sleep'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { LambdaCgroup, type CgroupFigures } from './cgroup'
import type { BenchEnv } from './env'

/**
 * Runs in the child: load the handler, invoke it ROUNDS times (each until DEADLINE), write the reports to RESULT_FILE.
 * A round after the first waits for the file GO<round>, as a warm sandbox waits for its next event: Lambda reuses a
 * sandbox, its loaded module and the code V8 has compiled, for the invocations that follow.
 */
const CHILD = `
const fs = require('fs')
const t = performance.now()
const { handler } = require(process.env.BUNDLE)
const loadMs = performance.now() - t
;(async () => {
  const rounds = []
  for (let i = 0; i < Number(process.env.ROUNDS || 1); i++) {
    if (i > 0) {
      fs.writeFileSync(process.env.GO + 'ready' + i, '1')
      while (!fs.existsSync(process.env.GO + i)) await new Promise((r) => setTimeout(r, 10))
    }
    const deadline = Number(fs.existsSync(process.env.GO + i) ? fs.readFileSync(process.env.GO + i, 'utf8') : process.env.DEADLINE)
    const cpu = process.cpuUsage()
    const report = await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, {
      awsRequestId: 'bench-' + i, functionName: 'scan', getRemainingTimeInMillis: () => deadline - Date.now(),
    })
    const used = process.cpuUsage(cpu)
    rounds.push({ ...report, cpuMs: (used.user + used.system) / 1000 })
  }
  fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ loadMs, ...rounds[0], rounds }))
  process.exit(0)
})().catch((e) => { console.error(e); process.exit(1) })
`

export interface Invocation {
  report?: {
    loadMs: number
    dispatched: number
    durationMs: number
    lateness: { p50: number; p99: number; max: number } | null
    /** Each invocation's report, the first (fresh) and the warm ones after it, with the CPU the process used in it. */
    rounds: { dispatched: number; durationMs: number; cpuMs: number }[]
  }
  /** The signal that ended the child, when one did (SIGKILL: the OOM killer). */
  signal: string | null
  cgroup: CgroupFigures
  /** The group's figures at `markAt` (the first due job), and when that was. */
  atMark?: CgroupFigures
  markedAt?: number
  endedAt: number
}

export async function invoke(
  env: BenchEnv,
  bundle: string,
  mb: number,
  periodMs: number,
  vars: Record<string, string>,
  markAt?: number,
  /** Warm invocations after the first, in the same child: `ready` readies a round's jobs and returns its deadline. */
  warm?: { rounds: number; ready: (round: number) => Promise<number> },
): Promise<Invocation> {
  const resultFile = join(tmpdir(), `sdq-lambda-size-${process.pid}.json`)
  const go = join(tmpdir(), `sdq-lambda-size-${process.pid}-go`)
  const rounds = 1 + (warm?.rounds ?? 0)
  const files = [resultFile, ...Array.from({ length: rounds }, (_, i) => [`${go}${i}`, `${go}ready${i}`]).flat()]
  for (const f of files) rmSync(f, { force: true })
  let group: LambdaCgroup | undefined
  try {
    group = new LambdaCgroup(`sdq-bench-${process.pid}-${mb}`, mb, periodMs)
    // Lambda's Node.js runtime: a tenth of the memory for the young generation, the rest for the old one.
    const v8 = [`--max-semi-space-size=${Math.floor(mb / 20)}`, `--max-old-space-size=${mb - Math.floor(mb / 10)}`]
    const { command, args } = group.wrap(process.execPath, [...v8, '-e', CHILD])
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...vars,
        BUNDLE: bundle,
        RESULT_FILE: resultFile,
        NODE_PATH: resolve(process.cwd(), 'node_modules'),
        REDIS_URL: env.redis.url,
        SQS_ENDPOINT: env.sqs.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(mb),
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        SAFETY_MARGIN_MS: '1000',
        ROUNDS: String(rounds),
        GO: go,
      },
    })
    let atMark: CgroupFigures | undefined
    let markedAt: number | undefined
    const g = group
    const marker = markAt
      ? setTimeout(() => {
          markedAt = Date.now()
          atMark = g.figures()
        }, markAt - Date.now())
      : undefined
    let warmDeadline = 0
    const warming = (async () => {
      for (let i = 1; i < rounds; i++) {
        while (!existsSync(`${go}ready${i}`) && child.exitCode === null && !child.signalCode) await sleep(10)
        if (child.exitCode !== null || child.signalCode) return
        warmDeadline = await warm!.ready(i)
        writeFileSync(`${go}${i}`, String(warmDeadline))
      }
    })()
    const killAt = () => Math.max(Number(vars.DEADLINE), warmDeadline) + 30_000
    const killer = setInterval(() => Date.now() > killAt() && child.kill('SIGKILL'), 1_000)
    const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((done, fail) => {
      child.once('error', fail)
      child.once('exit', (c, sig) => done({ code: c, signal: sig }))
    })
    const endedAt = Date.now()
    clearInterval(killer)
    clearTimeout(marker)
    await warming
    if (!signal && code !== 0)
      throw new Error(`the scan function exited with ${code} at ${mb} MB (its stderr is above)`)
    const report = signal ? undefined : JSON.parse(readFileSync(resultFile, 'utf8'))
    return { report, signal, cgroup: group.figures(), atMark, markedAt, endedAt }
  } finally {
    for (const f of files) rmSync(f, { force: true })
    group?.remove()
  }
}
