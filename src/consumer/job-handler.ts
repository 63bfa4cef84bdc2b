// The factory business Lambdas use: `export const handler = jobHandler<MyPayload>(async (job, ctx) => { ... })`.
// A middy handler, so users can add their own middlewares with `.use()`.
import middy from '@middy/core'
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { DEFAULT_BACKOFF, MAX_VISIBILITY_SECONDS, type BackoffPolicy } from './backoff'
import { DEFAULT_DEADLINE_MARGIN_MS } from './deadline'
import { idempotentRunner } from './idempotency'
import { defaultLogger } from './logger'
import type { ParserCheck } from './payload-parser'
import { processJobBatch, type BatchSettings, type RunJob } from './process-batch'
import { sqsClientFor } from './sqs-clients'
import type { JobBatchHandler, JobFunction, JobHandlerOptions } from './types'

export function jobHandler<Payload = unknown, Result = unknown>(
  fn: JobFunction<Payload, Result>,
  options: JobHandlerOptions<Payload> & ParserCheck<Payload> = {},
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
  const direct: RunJob<Payload> = async (job, ctx, hooks) => {
    hooks.markRan()
    const result = await fn(job, ctx)
    hooks.markDone()
    return result
  }
  let run = direct
  if (options.idempotency) {
    checkRange('idempotency.timeoutMs', options.idempotency.timeoutMs, 1, 60_000)
    const runner = idempotentRunner(options.idempotency)
    run = (job, ctx, hooks) => runner.run(job, ctx.lambdaContext, () => direct(job, ctx, hooks), hooks.msLeft)
  }
  const backoff: BackoffPolicy | false = options.backoff === false ? false : { ...DEFAULT_BACKOFF, ...options.backoff }
  if (backoff && !(backoff.baseSeconds >= 0 && backoff.capSeconds >= backoff.baseSeconds)) {
    throw new RangeError(`backoff needs 0 <= baseSeconds <= capSeconds, got ${JSON.stringify(backoff)}`)
  }
  const concurrency = options.concurrency ?? 10
  checkRange('concurrency', concurrency, 1, Number.MAX_SAFE_INTEGER)
  checkRange('malformedRetrySeconds', options.malformedRetrySeconds, 0, MAX_VISIBILITY_SECONDS)
  checkRange('maxReceiveCount', options.maxReceiveCount, 1, 1_000) // SQS's own range
  checkRange('deadlineMarginMs', options.deadlineMarginMs, 0, 900_000)
  const endpoint = options.sqsEndpoint ?? process.env.SQS_ENDPOINT
  return {
    run,
    parsePayload: options.parsePayload,
    concurrency,
    backoff,
    malformedRetrySeconds: options.malformedRetrySeconds ?? 0,
    maxReceiveCount: options.maxReceiveCount,
    deadlineMarginMs: options.deadlineMarginMs ?? DEFAULT_DEADLINE_MARGIN_MS,
    queueUrl: options.queueUrl,
    sqsFor: options.sqs ? () => options.sqs! : (region) => sqsClientFor(region, endpoint || undefined),
    logger: options.logger ?? defaultLogger(),
    logPayload: options.logPayload ?? false,
  }
}

/** Options are checked at cold start: a bad one fails the function's first invocation with its name and rule, never
 * a batch later (SQS would refuse a visibility of -5 or 1.5, and the records would only come back sooner). */
function checkRange(name: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`
    throw new RangeError(`${name} must be an integer ${range}, got ${value}`)
  }
}
