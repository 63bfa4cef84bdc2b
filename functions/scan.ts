// Scan function: fired every minute by EventBridge; runs the scanner until its remaining time falls to the safety
// margin, so consecutive invocations overlap by a few seconds (claims make the overlap safe). It logs through
// Powertools Logger (with the request id) and emits its metrics as EMF lines every 10 s and at the end.
import type { Context } from 'aws-lambda'
import { loadConfig } from '../src/config'
import { createLogger } from '../src/logger'
import { createEngine } from '../src/store/engine'
import { createScanner } from '../src/scan/engine'
import { createSqsClient } from '../src/sqs/client'

const config = loadConfig()
const logger = createLogger('delay-queue')
const engine = createEngine(config, { logger })
const sqs = createSqsClient(config)
const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'delay-queue'

export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context)
  const until = Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs
  // A scanner (and its wake-signal connection) per invocation: local runners may overlap invocations in one process.
  const { scanner, metrics, close } = createScanner(engine, sqs, { logger, metrics: { serviceName } })
  metrics?.start()
  try {
    const report = await scanner.run(until)
    logger.info('scan finished', { ...report })
    return report
  } finally {
    await metrics?.stop()
    await close()
  }
}
