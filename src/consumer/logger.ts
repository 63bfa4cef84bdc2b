// The toolkit's default logger: the engine's Powertools Logger, one line per job outcome.
import { createLogger, type Logger } from '../logger'

export function defaultLogger(): Logger {
  return createLogger('delay-queue-consumer')
}
