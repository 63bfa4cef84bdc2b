// Scan function: fired every minute by EventBridge (and, in on-demand mode, by enqueues: src/client/scan-starter.ts).
// Continuous mode: runs the scanner until its remaining time falls to the safety margin, or until the next
// invocation has taken over (src/scan/relay.ts: runs overlap only until the newer one is up). On-demand mode: the
// same, but it ends early once nothing is due before the next scheduled invocation could take it
// (src/scan/on-demand.ts). It logs through Powertools
// Logger (with the request id) and emits its metrics as EMF lines every 10 s and at the end.
import type { Context } from 'aws-lambda'
import { loadConfig } from '../src/config'
import { createLogger } from '../src/logger'
import { createEngine } from '../src/store/engine'
import { createScanner } from '../src/scan/engine'
import { createSqsClient } from '../src/sqs/client'
import { runInvocation } from '../src/scan/invocation'
import { scanStartOf } from '../src/store/scan-start'

const config = loadConfig()
const logger = createLogger('delay-queue')
const engine = createEngine(config, { logger })
const sqs = createSqsClient(config)
const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'delay-queue'

export const handler = async (event: unknown, context: Context) => {
  const startedAt = Date.now()
  logger.addContext(context)
  const until = Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs
  const source = (event as { source?: unknown } | null)?.source
  // A scanner (and its wake-signal connection) per invocation: local runners may overlap invocations in one process.
  const { scanner, metrics, close } = createScanner(engine, sqs, { logger, metrics: { serviceName } })
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
    // activeMs: the whole handler, what Lambda bills (the scan loop's own durationMs is in the report).
    logger.info('scan finished', { mode: config.scanMode, source, activeMs: Date.now() - startedAt, ...report })
    return report
  } finally {
    await metrics?.stop()
    await close()
  }
}
