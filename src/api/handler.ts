// The API Lambda handler, built around an engine: functions/api.ts passes the real one, tests a test engine.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import middy from '@middy/core'
import httpHeaderNormalizer from '@middy/http-header-normalizer'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { DelayQueue, type DelayQueueEngine } from '../direct/delay-queue'
import { createLogger, Logger, type Log } from '../logger'
import { errorMapper } from './error-middleware'
import { replayWindow } from './replay-window'
import type { ApiResponse } from './response'
import { matchRoute } from './router'
import { routes } from './routes'

export interface ApiHandlerOptions {
  /** Default: a Powertools Logger, which then carries each request's id. */
  logger?: Log
  /** Largest POST /jobs/batch body, bytes. Default 5 MiB: under Lambda's 6 MB request limit. */
  maxBatchBytes?: number
}

export const DEFAULT_MAX_BATCH_BYTES = 5 * 1024 * 1024

export function createApiHandler(engine: DelayQueueEngine, options: ApiHandlerOptions = {}) {
  const queue = new DelayQueue(engine)
  const routeOptions = { maxBatchBytes: options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES }
  const logger = options.logger ?? createLogger('delay-queue')
  const handler = middy<APIGatewayProxyEventV2, ApiResponse, Error, Context>().use(httpHeaderNormalizer())
  // Every line logged during a request carries its Lambda request id.
  if (logger instanceof Logger) handler.use(injectLambdaContext(logger, { resetKeys: true }))
  // replayWindow before errorMapper: middy runs onError in reverse order, so it sees the mapped error answer.
  handler.use(replayWindow(engine.config.dispatchReceiptTtlMs))
  return handler.use(errorMapper(logger)).handler(async (event) => {
    const route = matchRoute(event)
    return routes[route.name](queue, event, route.id, routeOptions)
  })
}
