// A logger that drops everything: the chaos run breaks Redis and SQS on purpose, so their errors are not news.
import type { Log } from '../../src/logger'

export const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined }
