// The factory business Lambdas use: `export const handler = jobHandler<MyPayload>(async (job, ctx) => { ... })`.
// A middy handler, so users can add their own middlewares with `.use()`.
import middy from '@middy/core'
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff'
import { idempotentRunner } from './idempotency'
import { defaultLogger } from './logger'
import { processJobBatch, type BatchSettings, type RunJob } from './process-batch'
import { sqsClientFor } from './sqs-client'
import type { JobBatchHandler, JobFunction, JobHandlerOptions } from './types'

export function jobHandler<Payload = unknown, Result = unknown>(
  fn: JobFunction<Payload, Result>,
  options: JobHandlerOptions<Payload> = {},
): JobBatchHandler {
  const settings = resolveSettings(fn, options)
  const handler = middy<SQSEvent, SQSBatchResponse>(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => processJobBatch(event, context, settings),
  )
  return handler.use(injectLambdaContext(settings.logger)) as unknown as JobBatchHandler
}

function resolveSettings<Payload, Result>(
  fn: JobFunction<Payload, Result>,
  options: JobHandlerOptions<Payload>,
): BatchSettings<Payload> {
  const direct: RunJob<Payload> = async (job, ctx, markRan) => {
    markRan()
    return fn(job, ctx)
  }
  let run = direct
  if (options.idempotency) {
    const runner = idempotentRunner(options.idempotency)
    run = (job, ctx, markRan) => runner.run(job, ctx.lambdaContext, () => direct(job, ctx, markRan))
  }
  const backoff: BackoffPolicy | false = options.backoff === false ? false : { ...DEFAULT_BACKOFF, ...options.backoff }
  if (backoff && !(backoff.baseSeconds >= 0 && backoff.capSeconds >= backoff.baseSeconds)) {
    throw new RangeError(`backoff needs 0 <= baseSeconds <= capSeconds, got ${JSON.stringify(backoff)}`)
  }
  const concurrency = options.concurrency ?? 10
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`)
  }
  const endpoint = options.sqsEndpoint ?? process.env.SQS_ENDPOINT
  return {
    run,
    parsePayload: options.parsePayload,
    concurrency,
    backoff,
    malformedRetrySeconds: options.malformedRetrySeconds ?? 0,
    queueUrl: options.queueUrl,
    sqsFor: options.sqs ? () => options.sqs! : (region) => sqsClientFor(region, endpoint || undefined),
    logger: options.logger ?? defaultLogger(),
    logPayload: options.logPayload ?? false,
  }
}
