// Scan function: fired every minute by EventBridge (and, in on-demand mode, by enqueues: src/client/scan-starter.ts).
// Continuous mode: runs the scanner until its remaining time falls to the safety margin, so consecutive invocations
// overlap by a few seconds (claims make the overlap safe). On-demand mode: the same, but it ends early once nothing
// is due before the next scheduled invocation could take it (src/scan/on-demand.ts).
import type { Context } from 'aws-lambda'
import { loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { createScanner } from '../src/scan/engine'
import { createSqsClient } from '../src/sqs/client'
import { runOnDemand } from '../src/scan/on-demand'
import { Presence } from '../src/scan/presence'

const config = loadConfig()
const engine = createEngine(config)
const sqs = createSqsClient(config)
const log = (entry: Record<string, unknown>) => console.log(JSON.stringify({ level: 'info', ...entry }))

export const handler = async (event: unknown, context: Context) => {
  const startedAt = Date.now()
  const until = Date.now() + context.getRemainingTimeInMillis() - config.safetyMarginMs
  const source = (event as { source?: unknown } | null)?.source
  // A scanner (and its wake-signal connection) per invocation: local runners may overlap invocations in one process.
  const { scanner, close } = createScanner(engine, sqs, { log })
  try {
    const report =
      config.scanMode === 'on-demand'
        ? await runOnDemand(scanner, until, {
            presence: new Presence(engine.redis, engine.keys, context.awsRequestId),
            horizonMs: config.onDemandHorizonMs,
            lingerMs: config.onDemandLingerMs,
            log,
          })
        : await scanner.run(until)
    // activeMs: the whole handler, what Lambda bills (the scan loop's own durationMs is in the report).
    log({ msg: 'scan finished', mode: config.scanMode, source, activeMs: Date.now() - startedAt, ...report })
    return report
  } finally {
    await close()
  }
}
