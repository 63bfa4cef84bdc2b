// The toolkit's default logger: structured JSON lines (Powertools), one per job outcome.
import { Logger } from '@aws-lambda-powertools/logger'

export function defaultLogger(): Logger {
  return new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'delay-queue-consumer' })
}
