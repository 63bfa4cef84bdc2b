// Scan function: fired every minute by EventBridge; runs the scanner until its remaining time falls to the safety
// margin, so consecutive invocations overlap by a few seconds (claims make the overlap safe).
import type { Context } from 'aws-lambda'
import { loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { createScanner } from '../src/scan/engine'
import { createSqsClient } from '../src/sqs/client'

const config = loadConfig()
const engine = createEngine(config)
const sqs = createSqsClient(config)
const log = (entry: Record<string, unknown>) => console.log(JSON.stringify({ level: 'info', ...entry }))

export const handler = async (_event: unknown, context: Context) => {
  const until = Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs
  // A scanner (and its wake-signal connection) per invocation: local runners may overlap invocations in one process.
  const { scanner, close } = createScanner(engine, sqs, { log })
  try {
    const report = await scanner.run(until)
    log({ msg: 'scan finished', ...report })
    return report
  } finally {
    await close()
  }
}
