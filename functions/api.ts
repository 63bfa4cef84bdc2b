// API Lambda (HTTP API, payload v2): the engine is built once per container; requests go to src/api/.
import { loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { createApiHandler } from '../src/api/handler'

// Short command timeout and one retry: a Redis outage answers 503 quickly instead of holding the request.
const engine = createEngine(loadConfig(), { commandTimeoutMs: 2_000, maxRetriesPerRequest: 1 })

export const handler = createApiHandler(engine)
