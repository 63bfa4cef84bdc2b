// A scanner as its own OS process, built from the real engine and configured like the scan function (environment,
// src/config.ts). The fault suite bundles it with scripts/run-ts.mjs `bundle()`, starts it, and kills it (-9) at
// random moments. It runs scan loops back to back, like EventBridge invoking the scan function every minute.
//   RUN_MS         length of one scan loop (default 60,000)
//   MAX_IN_FLIGHT  leased-but-unsettled jobs per scanner (default: the engine's, 8 claims)
// It prints one JSON line per event on stdout: {"event":"ready"} once subscribed, {"event":"loop",...} per loop, and,
// as they happen (a killed worker's last loop report is lost, these lines are not): {"event":"maybe-sent","jobs":n}
// when jobs are released after a send SQS may have acted on without answering, {"event":"unanswered","entries":n}
// per SendMessageBatch attempt that may have reached SQS without a definite answer (test/faults/unanswered-sends.ts),
// and {"event":"sent","id":id,"at":ms} for each flow-keyed job SQS took: when its SendMessageBatch started, on this
// process's clock (the chaos checker judges a limited key's rate there).
import { loadConfig } from '../../src/config'
import { createEngine } from '../../src/store/engine'
import { createScanner } from '../../src/scan/create-scanner'
import { createSqsClient } from '../../src/sqs/sqs-client'
import type { ScanObserver } from '../../src/scan/observe/run-tally'
import { countUnansweredSends } from './unanswered-sends'

const config = loadConfig()
const engine = createEngine(config)
const sqs = createSqsClient(config)
const runMs = Number(process.env.RUN_MS ?? 60_000)
const maxInFlight = process.env.MAX_IN_FLIGHT ? Number(process.env.MAX_IN_FLIGHT) : undefined
const say = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`)
countUnansweredSends(sqs, (entries) => say({ event: 'unanswered', entries }))
const noop = () => undefined
const observer: ScanObserver = {
  sent: noop,
  released: noop,
  dead: noop,
  redisError: noop,
  slept: noop,
  maybeSent: (jobs) => say({ event: 'maybe-sent', jobs }),
}

let stopping = false
let current: { close(): Promise<void> } | undefined

function log(msg: string, ...extra: Record<string, unknown>[]) {
  say({ event: 'log', msg, ...Object.assign({}, ...extra) })
}

async function main() {
  await engine.redis.ping().catch(() => undefined)
  say({ event: 'ready', pid: process.pid })
  // Bounded: a worker never outlives its test by much (the harness also kills it).
  const deadline = Date.now() + Number(process.env.WORKER_MAX_MS ?? 15 * 60_000)
  while (!stopping && Date.now() < deadline) {
    const s = createScanner(engine, sqs, {
      maxInFlight,
      observer,
      onSent: (job, _acceptedAtMs, _lateMs, sentAtMs) => {
        if (job.flowKey) say({ event: 'sent', id: job.id, at: sentAtMs })
      },
      logger: { info: log, warn: log, error: log },
    })
    current = s
    const report = await s.scanner.run(Math.min(Date.now() + runMs, deadline))
    await s.close()
    say({ event: 'loop', ...report })
  }
  await engine.close()
  sqs.destroy()
}

process.on('SIGTERM', () => {
  stopping = true
  void current?.close()
})

main().then(
  () => process.exit(0),
  (e) => {
    say({ event: 'fatal', error: String(e) })
    process.exit(1)
  },
)
