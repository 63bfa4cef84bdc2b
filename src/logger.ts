// The engine's one logger: Powertools Logger (a JSON line per entry with level, service, timestamp, and the Lambda
// request id once a handler adds its context). Engine code takes the narrow `Log` it satisfies, so a test or an
// embedding application can pass its own.
import { Logger } from '@aws-lambda-powertools/logger'

export interface Log {
  info(message: string, ...extra: Record<string, unknown>[]): void
  warn(message: string, ...extra: Record<string, unknown>[]): void
  error(message: string, ...extra: Record<string, unknown>[]): void
}

export { Logger }

/** A Powertools Logger named by POWERTOOLS_SERVICE_NAME when set, else `service`. */
export function createLogger(service: string): Logger {
  return new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || service })
}

/** Where engine parts log when given nothing: one shared logger, built on first use. */
let shared: Logger | undefined
export function defaultLog(): Log {
  shared ??= createLogger('delay-queue')
  return shared
}
