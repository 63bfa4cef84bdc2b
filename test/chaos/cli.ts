// `npm run chaos -- [--minutes N] [--seed S] [--cluster] [--out FILE]` (or `--check FILE [--show N]`: check a saved history): a chaos run against real parts on loopback (Redis primary
// + 2 replicas + 3 sentinels, the local SQS behind a fault proxy, the API, 3 scanner processes), many faults at once,
// then the history checker's verdict per promise (this folder). Writes the history as JSON (default
// .build/chaos-<seed>.json) and exits 1 when a promise was broken. Ctrl-C stops the run and everything it started.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { check, formatVerdict } from './checker'
import type { History } from './history'
import { runChaos } from './run'

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}

async function main() {
  const cluster = process.argv.includes('--cluster')
  const saved = arg('check')
  if (saved) {
    // Check a saved history again (after a change to the checker): no run.
    const history = JSON.parse(readFileSync(saved, 'utf8')) as History
    const verdict = check(history)
    console.log(formatVerdict(history, verdict, Number(arg('show') ?? 5)))
    process.exit(verdict.valid ? 0 : 1)
  }
  const minutes = Number(arg('minutes') ?? 1)
  const seed = Number(arg('seed') ?? Math.floor(Math.random() * 2 ** 31))
  if (!(minutes > 0) || !Number.isInteger(seed)) {
    console.error('usage: npm run chaos -- [--minutes N] [--seed S] [--cluster] [--out FILE]')
    process.exit(2)
  }
  const out = resolve(arg('out') ?? `.build/chaos-${seed}.json`)
  const abort = new AbortController()
  process.once('SIGINT', () => {
    console.log('stopping: healing faults and stopping every process started...')
    abort.abort()
  })
  const t = Date.now()
  const log = (line: string) => console.log(`[${((Date.now() - t) / 1000).toFixed(1).padStart(6)}s] ${line}`)
  log(`chaos run: ${minutes} min, seed ${seed}${cluster ? ', Redis Cluster' : ''}`)
  const { history, verdict } = await runChaos({
    durationMs: minutes * 60_000,
    seed,
    log,
    signal: abort.signal,
    cluster,
  })
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, JSON.stringify(history))
  const byKind: Record<string, number> = {}
  for (const f of history.faults) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1
  const outcomes: Record<string, number> = {}
  for (const op of history.ops) outcomes[`${op.kind} ${op.outcome}`] = (outcomes[`${op.kind} ${op.outcome}`] ?? 0) + 1
  console.log(`\noperations: ${history.ops.length} (${JSON.stringify(outcomes)})`)
  console.log(`deliveries: ${history.deliveries.length}`)
  console.log(`faults: ${history.faults.length} ${JSON.stringify(byKind)}`)
  // Sends SQS may have taken without answering (a loaded machine's timeouts among them), as the scanners reported them.
  const environment: Record<string, number> = {}
  for (const e of history.environment ?? []) environment[e.kind] = (environment[e.kind] ?? 0) + e.count
  console.log(`unanswered sends: ${JSON.stringify(environment)}`)
  console.log(`history: ${out}\n`)
  console.log(formatVerdict(history, verdict))
  process.exit(verdict.valid ? 0 : 1)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
