// API Lambda (HTTP API, payload v2): the engine is built once per container; requests go to src/api/.
// Logs through Powertools Logger (each line with the request id). No metrics of its own: API Gateway (AWS/ApiGateway)
// and Function URLs (AWS/Lambda Url*) count requests, 4xx and 5xx for free; custom ones cost $0.30 each a month.
import { loadConfig } from '../src/config'
import { createLogger } from '../src/logger'
import { createEngine } from '../src/store/engine'
import { createApiHandler } from '../src/api/handler'

const logger = createLogger('delay-queue')
// Short command timeout and one retry: a Redis outage answers 503 quickly instead of holding the request.
const engine = createEngine(loadConfig(), { commandTimeoutMs: 2_000, maxRetriesPerRequest: 1, logger })

export const handler = createApiHandler(engine, { logger })
