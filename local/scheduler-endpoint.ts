// The Scheduler-compatible API of the dev stack: the same handler the deployed `scheduler` function runs
// (functions/scheduler.ts), served on loopback beside the dashboard, on the functions' settings (Redis, key prefix,
// QUEUES), so that @aws-sdk/client-scheduler pointed at it schedules into the stack's queues.
import { loadConfig } from '../src/config'
import { createSchedulerHandler } from '../src/scheduler-api/handler'
import { serveScheduler } from '../src/scheduler-api/http-server'
import { createEngine } from '../src/store/engine'

export async function startSchedulerEndpoint(functionEnv: NodeJS.ProcessEnv, port = 0) {
  const engine = createEngine(loadConfig(functionEnv), { maxRetriesPerRequest: 1, commandTimeoutMs: 5_000 })
  try {
    const handler = createSchedulerHandler(engine)
    const server = await serveScheduler(handler, port)
    return {
      url: server.url,
      async close() {
        await server.close()
        await engine.close()
      },
    }
  } catch (e) {
    await engine.close()
    throw e
  }
}
