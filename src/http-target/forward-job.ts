// The forwarder's work for one job of an HTTP target queue: build the request from the payload and the queue's
// defaults, sign it, call, and turn the result into the consumer toolkit's terms: return (done), RetryLaterError
// (SQS brings it back after the backoff or the Retry-After, whichever is longer), DeadLetterNowError (to the DLQ now).
// Each call's result is recorded beside the job's dispatch receipt; callbacks follow the final outcome.
import { DeadLetterNowError, RetryLaterError, type Job, type JobContext } from '../consumer'
import { withinMs } from '../consumer/deadline'
import type { DeliveryRecord, KeptDelivery } from '../store/delivery-record'
import { addressPolicy } from './address-policy'
import { verdictOfAnswer, verdictOfError, type Verdict } from './answer-verdict'
import { callbackJob, isCallbackId, type CallbackJob } from './callback-job'
import type { ForwarderSettings } from './forwarder-settings'
import { checkHttpRequest, type ResolvedRequest } from './request-spec'
import type { SecretLoader } from './secret-loader'
import type { Sender } from './send-request'
import { webhookHeaders } from './webhook-signature'

/** Time kept back from the Lambda's remaining time for recording, callbacks and the batch answer. */
export const CALL_MARGIN_MS = 1_500

export interface ForwarderDeps {
  settings: ForwarderSettings
  sender: Sender
  /** None: deliveries go unsigned. */
  secrets?: SecretLoader
  /** The queue's maxReceiveCount: a retryable failure on that attempt is final (SQS moves the job to the DLQ). */
  maxReceiveCount?: number
  /** Keeps the outcome beside the receipt (Redis); absent: not kept. */
  record?: (id: string, record: KeptDelivery) => Promise<void>
  /** Reads what `record` kept (Redis): a copy of a job delivered already is not called again. */
  recorded?: (id: string) => Promise<KeptDelivery | undefined>
  /** Creates a callback job (Redis); absent: callbacks are not sent. */
  enqueue?: (job: CallbackJob) => Promise<void>
  now?: () => number
  /** Just before the request goes out (bench: SQS receive -> request start). */
  onRequestStart?: (job: Job<unknown>) => void
}

export function forwardJob(deps: ForwarderDeps) {
  const now = deps.now ?? Date.now
  const judge = addressPolicy({ allow: deps.settings.allowCidrs, allowLoopback: deps.settings.allowLoopback })
  const ctxOf = { deps, now, judge }
  return async (job: Job<unknown>, ctx: JobContext): Promise<void> => {
    if (await deliveredBefore(deps, job, ctx)) {
      ctx.logger.info('duplicate delivery: job already delivered, not called again')
      return
    }
    const built = buildRequest(deps.settings, job)
    const verdict: Verdict =
      'request' in built ? await call(ctxOf, built.request, job, ctx) : { kind: 'dead-letter', reason: built.problem }
    const final =
      verdict.kind !== 'retry' || (deps.maxReceiveCount !== undefined && job.attempt >= deps.maxReceiveCount)
    const outcome = verdict.kind === 'delivered' ? 'delivered' : final ? 'dead-lettered' : 'retrying'
    await keep(ctxOf, job, ctx, verdict, outcome)
    if (final && 'request' in built) await sendCallback(deps, job, ctx, built.request, verdict, outcome)
    if (verdict.kind === 'delivered') return
    if (verdict.kind === 'dead-letter') throw new DeadLetterNowError(verdict.reason)
    throw new RetryLaterError(verdict.reason, verdict.afterSeconds ?? 0)
  }
}

interface Wiring {
  deps: ForwarderDeps
  now: () => number
  judge: ReturnType<typeof addressPolicy>
}

function buildRequest(
  settings: ForwarderSettings,
  job: Job<unknown>,
): { request: ResolvedRequest } | { problem: string } {
  const queueDefaults = settings.targets.queues[job.queue]
  if (!queueDefaults) return { problem: `queue "${job.queue}" is not an HTTP target queue (HTTP_TARGETS)` }
  const { headers: _, ...withoutHeaders } = queueDefaults
  const defaults = isCallbackId(job.id) ? withoutHeaders : queueDefaults
  const problems: string[] = []
  const request = checkHttpRequest(job.payload, defaults, { httpsOnly: !settings.targets.local }, (p, m) =>
    problems.push(`${p}: ${m}`),
  )
  return request ? { request } : { problem: `not a valid HTTP job: ${problems.join('; ')}` }
}

async function call(w: Wiring, request: ResolvedRequest, job: Job<unknown>, ctx: JobContext): Promise<Verdict> {
  const { deps, now } = w
  const headers: Record<string, string> = { 'user-agent': 'serverless-delay-queue-forwarder', ...request.headers }
  try {
    if (deps.secrets) {
      const keys = await deps.secrets.keys()
      Object.assign(headers, webhookHeaders(keys, job.id, now() / 1000, request.body ?? ''))
    }
  } catch (error) {
    return { kind: 'retry', reason: (error as Error).message }
  }
  const left = ctx.lambdaContext.getRemainingTimeInMillis() - CALL_MARGIN_MS
  const totalTimeoutMs = Math.min(deps.settings.timeoutMs, left)
  if (totalTimeoutMs <= 0) return { kind: 'retry', reason: 'not called: the invocation deadline was near' }
  const limits = { totalTimeoutMs, connectTimeoutMs: Math.min(deps.settings.connectTimeoutMs, totalTimeoutMs) }
  deps.onRequestStart?.(job)
  try {
    const answer = await deps.sender.send({ ...request, headers }, limits)
    return verdictOfAnswer(answer, w.judge, now())
  } catch (error) {
    return verdictOfError(error)
  }
}

/** Which dispatch of an id a record is about: a job re-created later under the same id is called again. */
const dispatchOf = (job: Job<unknown>) => `${job.runAt} ${job.createdAt}`

/** Bound of the look at the record: Redis down must not hold deliveries. */
const RECORD_READ_MS = 1_000

/**
 * SQS delivers at least once (a lost delete, a visibility that ran out, the scanner re-sending a job whose ack was
 * lost): a copy of a job whose call got a 2xx is acknowledged without a second call or callback. When the record cannot
 * be read, the call is made: a duplicate is better than a lost delivery.
 */
async function deliveredBefore(deps: ForwarderDeps, job: Job<unknown>, ctx: JobContext): Promise<boolean> {
  if (!deps.recorded) return false
  try {
    const kept = await withinMs(RECORD_READ_MS, () => deps.recorded!(job.id))
    return kept?.outcome === 'delivered' && kept.of === dispatchOf(job)
  } catch (error) {
    ctx.logger.warn('delivery record not read: calling', { error })
    return false
  }
}

/** A Redis failure here must not undo a delivery: logged, and the job's outcome stands. */
async function keep(
  w: Wiring,
  job: Job<unknown>,
  ctx: JobContext,
  verdict: Verdict,
  outcome: DeliveryRecord['outcome'],
) {
  if (!w.deps.record) return
  const record: KeptDelivery = {
    of: dispatchOf(job),
    outcome,
    ...(verdict.status === undefined ? {} : { status: verdict.status }),
    ...(verdict.excerpt ? { excerpt: verdict.excerpt } : {}),
    attempts: job.attempt,
    ...(verdict.kind === 'delivered' ? {} : { reason: verdict.reason }),
    at: new Date(w.now()).toISOString(),
  }
  await w.deps.record(job.id, record).catch((error: Error) => ctx.logger.warn('delivery not recorded', { error }))
}

async function sendCallback(
  deps: ForwarderDeps,
  job: Job<unknown>,
  ctx: JobContext,
  request: ResolvedRequest,
  verdict: Verdict,
  outcome: DeliveryRecord['outcome'],
) {
  const kind = verdict.kind === 'delivered' ? 'success' : 'failure'
  const url = request.callbacks[kind]
  if (!url || !deps.enqueue) return
  const cb = callbackJob(job, kind, url, {
    outcome,
    status: verdict.status,
    attempts: job.attempt,
    excerpt: verdict.excerpt,
    reason: verdict.kind === 'delivered' ? undefined : verdict.reason,
  })
  await deps
    .enqueue(cb)
    .catch((error: Error) => ctx.logger.error('callback not scheduled', { callbackId: cb.id, error }))
}
