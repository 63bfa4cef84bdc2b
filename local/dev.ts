// `npm run dev`: the whole stack in one command (local/dev-stack.ts); Ctrl-C stops every process it started.
// `npm run dev -- --no-example-consumer` leaves the target queues to another service's consumer (sdq-poll); the
// stack's addresses are in .dev/env while it runs. `--verbose` also prints serverless-offline's own start-up table
// and the consumer's JSON log lines (by default, one `[job] …` line per job outcome stands for them).
// Environment: REDIS_URL (use that Redis instead of a private one), PORT (API port, default 3000 when free),
// LAMBDA_PORT (serverless-offline's Lambda endpoint, default 3002 when free), SQS_PORT (local SQS, default 9324
// when free), DASHBOARD_PORT (the operator dashboard, default 3003 when free), SHOW_METRICS=1 (print the functions'
// EMF metric lines too), SDQ_LOCAL_ALLOWED_ORIGINS (origins whose pages may call the API from a browser, e.g.
// http://localhost:5173: docs/local.md), and any setting of docs/settings.md (e.g. POLL_INTERVAL_MS) for the functions.
import { freePort } from './ports'
import { startDevStack, type DevStack } from './dev-stack'
import { jobOutcomeLine } from './job-lines'
import { devBanner } from './dev-banner'
import { createServer } from 'node:net'
import { resolve } from 'node:path'

/** The wanted port when it is free, else a free one (a second stack, another tool on 3000...). */
async function portOr(wanted: string | undefined, fallback: number): Promise<number> {
  const port = wanted ? Number(wanted) : fallback
  if (wanted && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new Error(`not a port: ${wanted}`)
  const free = await new Promise<boolean>((ok) => {
    const srv = createServer()
    srv.once('error', () => ok(false))
    srv.listen(port, '127.0.0.1', () => srv.close(() => ok(true)))
  })
  if (free) return port
  if (wanted) throw new Error(`port ${port} is taken`)
  return freePort()
}

const showMetrics = Boolean(process.env.SHOW_METRICS)

async function main() {
  const started = Date.now()
  let starting: Promise<DevStack> | undefined
  let stopping: Promise<void> | undefined
  const stop = (signal: string) => {
    stopping ??= (async () => {
      console.log(`\n[dev] ${signal}: stopping...`)
      // Mid-start, wait for the start to finish (or fail and clean up) so nothing it spawned is left behind.
      await starting?.then(
        (stack) => stack.stop(),
        () => {},
      )
      console.log('[dev] stopped')
      process.exit(0)
    })()
  }
  // Ctrl-C reaches this process twice (from the terminal and from scripts/run-ts.mjs): stop once.
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))

  const [httpPort, lambdaPort, sqsPort, dashboardPort] = await Promise.all([
    portOr(process.env.PORT, 3000),
    portOr(process.env.LAMBDA_PORT, 3002),
    portOr(process.env.SQS_PORT, 9324),
    portOr(process.env.DASHBOARD_PORT, 3003),
  ])
  const exampleConsumer = !process.argv.includes('--no-example-consumer')
  const verbose = process.argv.includes('--verbose')
  const envFile = resolve('.dev/env')
  starting = startDevStack({
    redisUrl: process.env.REDIS_URL || undefined,
    httpPort,
    lambdaPort,
    sqsPort,
    dashboardPort,
    exampleConsumer,
    envFile,
    // The functions' metric lines (EMF, several every 10 s) would bury their logs: the dashboard shows the figures.
    // serverless-offline's own start-up table lists its internal routes (the API behind the gate, the Lambda
    // endpoint's /2015-03-31/… invocations): the stack's banner below names the addresses to use. A consumer's
    // JSON lines become one short line per job outcome (local/job-lines.ts); --verbose prints them as well.
    onOutput: (line) => {
      if ((!showMetrics && line.includes('{"_aws":')) || (!verbose && isOfflineBanner(line))) return
      const outcome = jobOutcomeLine(line)
      if (outcome) console.log(outcome)
      if (outcome === undefined || verbose) console.log(line)
    },
  })
  const stack = await starting
  if (stopping) return
  // A part that died took the stack down with it (local/dev-stack.ts): say so and fail, as a crashed server would.
  void stack.exited.then((what) => {
    if (stopping) return
    console.error(`[dev] ${what}; the stack has stopped everything it started and removed ${envFile}`)
    process.exit(1)
  })

  const queueOf = (logicalId: string) => stack.spec.queues.find((q) => q.logicalId === logicalId)?.target ?? logicalId
  console.log(
    devBanner({
      readyInS: (Date.now() - started) / 1000,
      apiUrl: stack.apiUrl,
      dashboardUrl: stack.dashboardUrl,
      schedulerUrl: stack.schedulerUrl,
      lambdaUrl: stack.lambdaUrl,
      sqsEndpoint: stack.sqsEndpoint,
      redisUrl: stack.redisUrl,
      queues: stack.queues,
      scanMode: stack.scanMode,
      consumers: exampleConsumer
        ? stack.spec.consumers.map((c) => ({ function: c.function, queue: queueOf(c.queueLogicalId) }))
        : [],
      envFile,
    }),
  )
}

main().catch((error) => {
  console.error('[dev] failed to start:', error instanceof Error ? error.message : error)
  process.exit(1)
})

/**
 * A line of serverless-offline's start-up output: its internal routes and function names, the address of the API
 * behind the gate (shown with --verbose).
 */
function isOfflineBanner(line: string): boolean {
  if (line.trim() === '' || /^\s*[┌│└]/.test(line) || /^\s+\* \w+: serverless-delay-queue-/.test(line)) return true
  return /^(Function names exposed|Offline \[http for lambda\]|Server ready:|Starting Offline|Scheduling \[)/.test(line)
}
