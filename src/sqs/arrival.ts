// Whether SQS may have carried out a SendMessageBatch that failed. It decides whether the call's jobs are released as
// "maybe sent" (a cancel then answers 409: the message may run) or as never sent (cancellable, and no copy to fear).
//
// Judged per HTTP attempt: the SDK retries an attempt itself, and the error a call ends with describes its last
// attempt only. An attempt SQS took whose answer was lost, retried into a refused connection, ends with
// ECONNREFUSED: the message is in SQS all the same. Two refused connections in a row (an SQS outage) end the same
// way, and nothing arrived. A middleware inside the SDK's retry sees every attempt and remembers, on the call's
// input, whether any of them may have arrived (watchAttempts, for inputs marked by watched()); a call without it falls
// back to "an attempt before the last may have arrived" whenever the SDK retried.
import type { SQSClient } from '@aws-sdk/client-sqs'

/** Errors of a request that never left this machine, or found nobody listening: SQS cannot have taken it. */
const NEVER_ARRIVED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

/** On a call's input: what its attempts showed so far (an object, shared with copies the SDK may make of the input). */
const ATTEMPTS = Symbol('sdq.attempts')
interface Attempts {
  /** An attempt failed in a way SQS may still have carried out. */
  arrived: boolean
  /** An attempt is on its way now: a call given up meanwhile (its bound passed) may have arrived. */
  inFlight: boolean
  /** The watch saw an attempt: without it (a client without watchAttempts) nothing above is known. */
  seen: boolean
}
type Marked = { [ATTEMPTS]?: Attempts }

/** The verdicts of watched calls that failed, by the error they ended with. */
const verdicts = new WeakMap<object, boolean>()

/**
 * Whether one attempt that failed with `e` may have been carried out: yes after a timeout, a connection reset
 * mid-request, an abort or a server error (5xx): the request may have arrived with only its answer lost. No when it
 * never reached SQS (refused connection, name not found) or SQS answered that it refused it (4xx, throttling).
 */
export function attemptMayHaveArrived(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string }; $metadata?: { httpStatusCode?: number }; name?: string }
  const code = err?.code ?? err?.cause?.code
  if (code && NEVER_ARRIVED.has(code)) return false
  const status = err?.$metadata?.httpStatusCode
  if (status !== undefined && status >= 400 && status < 500) return false
  return !/throttl/i.test(err?.name ?? '')
}

/**
 * Whether SQS may have carried out a call that failed with `e`: any of its attempts may have arrived. For a call the
 * watch saw, that is what its attempts showed; else its last attempt's error, and "yes" whenever the SDK retried.
 */
export function mayHaveArrived(e: unknown): boolean {
  const verdict = typeof e === 'object' && e !== null ? verdicts.get(e) : undefined
  if (verdict !== undefined) return verdict
  if (((e as { $metadata?: { attempts?: number } })?.$metadata?.attempts ?? 1) > 1) return true
  return attemptMayHaveArrived(e)
}

/** A call's input, marked for the watch: mark it before the send, and pass it to callFailed if the send fails. */
export function watched<T extends object>(input: T): T {
  return Object.assign(input, { [ATTEMPTS]: { arrived: false, inFlight: false, seen: false } })
}

/** Files the verdict of a watched call that failed with `e` (sendPrebuilt calls it as the call ends). */
export function callFailed(input: object, e: unknown): void {
  const attempts = (input as Marked)[ATTEMPTS]
  if (attempts?.seen && typeof e === 'object' && e !== null) verdicts.set(e, attempts.arrived || attempts.inFlight)
}

/** Installs the per-attempt watch on a client; call before its first send (the client caches its handler). */
export function watchAttempts(sqs: SQSClient): void {
  sqs.middlewareStack.add(
    (next) => async (args) => {
      const attempts = (args.input as Marked)[ATTEMPTS]
      if (!attempts) return next(args)
      attempts.seen = true
      attempts.inFlight = true
      try {
        return await next(args)
      } catch (e) {
        if (attemptMayHaveArrived(e)) attempts.arrived = true
        throw e
      } finally {
        attempts.inFlight = false
      }
    },
    // Low priority in the retry middleware's step: inside it, so it sees every attempt on its own.
    { step: 'finalizeRequest', priority: 'low', name: 'sdqAttemptArrival' },
  )
}
