// Scheduler-compatible API Lambda (docs/scheduler-api.md): EventBridge Scheduler's REST API over the delay queue's
// jobs and recurring schedules, behind IAM authorization (src/scheduler-api/deployed.ts says where and how).
import { loadConfig } from '../src/config'
import { createLogger } from '../src/logger'
import { deployedOptions } from '../src/scheduler-api/deployed'
import { createSchedulerHandler } from '../src/scheduler-api/handler'
import { createEngine } from '../src/store/engine'

const logger = createLogger('delay-queue-scheduler')
const engine = createEngine(loadConfig(), { commandTimeoutMs: 2_000, maxRetriesPerRequest: 1, logger })

export const handler = createSchedulerHandler(engine, {
  ...deployedOptions,
  logger,
})
