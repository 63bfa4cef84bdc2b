// Scan function: fired every minute by EventBridge (and, in on-demand mode, by enqueues:
// src/on-demand/start/scan-starter.ts). Continuous mode: runs the scanner until its remaining time falls to the safety
// margin, or until the next invocation has taken over (src/scan/run/relay.ts: runs overlap only until the newer one is
// up). On-demand mode: the same, but it ends early once nothing is due before the next scheduled invocation could take
// it (src/on-demand/run/run-on-demand.ts). A burst larger than one scanner drains in about a second starts scan
// workers, invokes of this same function with a worker's event (src/scan/run/fan-out.ts); a worker only drains, and
// ends when nothing is due (src/scan/run/worker.ts). It logs through Powertools Logger (with the request id) and emits
// its metrics as EMF lines every 10 s and at the end.
import type { Context } from 'aws-lambda'
import { loadConfig } from '../src/config'
import { isFifoQueue } from '../src/queues'
import { createLogger } from '../src/logger'
import { createEngine } from '../src/store/engine'
import { createScanner } from '../src/scan/create-scanner'
import { createSqsClient } from '../src/sqs/sqs-client'
import { runInvocation } from '../src/scan/run/invocation'
import { scanStartOf } from '../src/on-demand/start/scan-start'
import { FanOut, type ScanWorkerEvent, scanWorkerOf } from '../src/scan/run/fan-out'
import { runWorker } from '../src/scan/run/worker'
import { lambdaInvoker, type ScanInvoker } from '../src/on-demand/start/lambda-invoker'

const config = loadConfig()
const logger = createLogger('delay-queue')
const engine = createEngine(config, { logger })
const sqs = createSqsClient(config)
const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'delay-queue'
// Several scanners would break a FIFO group's order: each holds a group's jobs until it has claimed every shard up
// to their due time (src/scan/loop/fifo-merge.ts), but only its own claims; two scanners could send one group's jobs out
// of order. So a deployment with a FIFO target queue never fans out (docs/internals.md, "Fan-out").
const fanOutOn = config.scanMaxWorkers > 0 && !Object.keys(config.queues).some(isFifoQueue)
// Built at the first fan-out: loading the Lambda SDK would lengthen every cold start for bursts most runs never see.
let invoker: ScanInvoker<ScanWorkerEvent> | undefined

export const handler = async (event: unknown, context: Context) => {
  const startedAt = Date.now()
  logger.addContext(context)
  const until = Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs
  const source = (event as { source?: unknown } | null)?.source
  const worker = scanWorkerOf(event)
  if (worker) {
    // A worker's scanner needs no wake signal: it drains what is due and ends.
    const { scanner, metrics, close } = createScanner(engine, sqs, {
      logger,
      subscribe: false,
      metrics: { serviceName },
    })
    metrics?.start()
    try {
      const report = await runWorker(scanner, Math.min(until, worker.deadline))
      logger.info('scan worker finished', { ...worker, activeMs: Date.now() - startedAt, ...report })
      return report
    } finally {
      await metrics?.stop()
      await close()
    }
  }
  const fanOut = fanOutOn
    ? new FanOut({
        maxWorkers: config.scanMaxWorkers,
        deadline: until,
        name: context.awsRequestId,
        start: (e) => {
          invoker ??= lambdaInvoker<ScanWorkerEvent>(config, config.scanFunctionName ?? context.functionName)
          return invoker.invoke(e)
        },
        logger,
      })
    : undefined
  // A scanner (and its wake-signal connection) per invocation: local runners may overlap invocations in one process.
  const { scanner, metrics, close } = createScanner(engine, sqs, {
    logger,
    metrics: { serviceName },
    ...(fanOut ? { onClaimed: (shard, result) => fanOut.claimed(shard, result) } : {}),
  })
  metrics?.start()
  try {
    const report = await runInvocation(scanner, until, {
      mode: config.scanMode,
      redis: engine.redis,
      keys: engine.keys,
      name: context.awsRequestId,
      // An enqueue's start (on-demand mode) or a tick: the relay's look times and the start guard depend on it.
      ...scanStartOf(event),
      onDemand: { horizonMs: config.onDemandHorizonMs, lingerMs: config.onDemandLingerMs },
      logger,
    })
    // An invoke left pending in a frozen environment would start a worker minutes later, for nothing.
    await fanOut?.settled()
    // activeMs: the whole handler, what Lambda bills (the scan loop's own durationMs is in the report).
    const workers = fanOut ? { workersStarted: fanOut.started, workerStartsFailed: fanOut.failed } : {}
    logger.info('scan finished', {
      mode: config.scanMode,
      source,
      activeMs: Date.now() - startedAt,
      ...report,
      ...workers,
    })
    return report
  } finally {
    await fanOut?.settled()
    await metrics?.stop()
    await close()
  }
}
