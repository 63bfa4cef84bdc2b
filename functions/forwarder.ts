// The shipped forwarder: consumes an HTTP target queue and makes each job's HTTP call (src/http-target/), signed the
// Standard Webhooks way, behind the SSRF guard; SQS and its redrive do the retries (docs/http-targets.md).
import { loadConfig } from '../src/config'
import { DelayQueue } from '../src/direct/delay-queue'
import { createForwarder } from '../src/http-target/create-forwarder'
import { createLogger } from '../src/logger'
import { createEngine } from '../src/store/engine'

// Module scope: built once per container. With Redis configured the outcome of each call is kept beside the job's
// dispatch receipt, and callbacks are scheduled as jobs; without it the forwarder only delivers.
const logger = createLogger('http-forwarder')
const redisConfigured = Boolean(process.env.REDIS_URL || process.env.REDIS_CLUSTER_NODES || process.env.REDIS_SENTINELS)
const engine = redisConfigured ? createEngine(loadConfig(), { logger }) : undefined

export const handler = createForwarder({
  logger,
  ...(engine ? { engine, queue: new DelayQueue(engine) } : {}),
}).handler
