// The API Lambda handler, built around an engine: functions/api.ts passes the real one, tests a test engine.
import middy from '@middy/core'
import httpHeaderNormalizer from '@middy/http-header-normalizer'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { DelayQueue, type DelayQueueEngine } from '../client/delay-queue'
import { errorMapper } from './error-middleware'
import { consoleLogger, type Logger } from './logger'
import type { ApiResponse } from './response'
import { matchRoute } from './router'
import { routes } from './routes'

export interface ApiHandlerOptions {
  logger?: Logger
  /** Largest POST /jobs/batch body, bytes. Default 5 MiB: under Lambda's 6 MB request limit. */
  maxBatchBytes?: number
}

export const DEFAULT_MAX_BATCH_BYTES = 5 * 1024 * 1024

export function createApiHandler(engine: DelayQueueEngine, options: ApiHandlerOptions = {}) {
  const queue = new DelayQueue(engine)
  const routeOptions = { maxBatchBytes: options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES }
  return middy<APIGatewayProxyEventV2, ApiResponse, Error, Context>()
    .use(httpHeaderNormalizer())
    .use(errorMapper(options.logger ?? consoleLogger))
    .handler(async (event) => {
      const route = matchRoute(event)
      return routes[route.name](queue, event, route.id, routeOptions)
    })
}
