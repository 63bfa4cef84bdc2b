// The invocation's time budget. A Lambda that runs into its timeout fails as a whole: SQS redelivers every record of
// the batch, the ones that succeeded included, and the toolkit's backoff is never set. So the toolkit settles the
// records a margin before the timeout and gives up on its own SQS calls a smaller margin before it, and the batch
// answer always goes back in time.
import type { Context } from 'aws-lambda'
import { DeadlineError } from './errors'

/** Default: records are settled 1 s before the timeout, which leaves the visibility changes time to go out. */
export const DEFAULT_DEADLINE_MARGIN_MS = 1_000
/** The toolkit's SQS calls end this long before the timeout at the latest (middy's own TimeoutError fires 5 ms before
 * it; the answer still has to be serialized and sent). */
export const SETTLE_MARGIN_MS = 250

export interface BatchDeadline {
  /** Milliseconds left for running records (<= 0: the records' deadline has passed). */
  recordsLeftMs(): number
  /** Milliseconds left for the toolkit's own SQS calls. */
  settleLeftMs(): number
  /** Rejects with DeadlineError when the records' deadline passes; never settles without a deadline. */
  race<T>(work: Promise<T>): Promise<T>
  /** The seconds the invocation may still last at most, from its start (for the 12 h visibility limit). */
  budgetSeconds: number
  dispose(): void
}

/** Lambda's longest timeout: the budget assumed when the context says nothing. */
const MAX_LAMBDA_SECONDS = 900

export function batchDeadline(context: Context | undefined, marginMs: number, now = Date.now): BatchDeadline {
  const startMs = now()
  const remainingAtStart =
    typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Infinity
  // A tiny budget still gets a share for each phase: half for the records at least, an eighth for the answer.
  const settleMargin = Math.min(SETTLE_MARGIN_MS, remainingAtStart / 8)
  const recordsMargin = Math.min(Math.max(marginMs, settleMargin), remainingAtStart / 2)
  const recordsEnd = startMs + remainingAtStart - recordsMargin
  const settleEnd = startMs + remainingAtStart - settleMargin
  let timer: NodeJS.Timeout | undefined
  let due: Promise<never> | undefined
  const recordsDue = () => {
    if (!due) {
      due = new Promise<never>((_, reject) => {
        if (!Number.isFinite(recordsEnd)) return
        timer = setTimeout(() => reject(new DeadlineError(true)), Math.max(0, recordsEnd - now()))
        timer.unref()
      })
      due.catch(() => {}) // a deadline nobody awaits any more is not an unhandled rejection
    }
    return due
  }
  return {
    recordsLeftMs: () => recordsEnd - now(),
    settleLeftMs: () => settleEnd - now(),
    race: (work) => Promise.race([work, recordsDue()]),
    budgetSeconds: Number.isFinite(remainingAtStart) ? Math.ceil(remainingAtStart / 1000) : MAX_LAMBDA_SECONDS,
    dispose: () => clearTimeout(timer),
  }
}

/** Runs an SQS call that must end within `ms`: aborts it then (the SDK drops the socket) and rejects at once even if
 * the client ignores the signal. */
export async function withinMs<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (ms <= 0) throw new Error('no time left before the invocation deadline')
  const abort = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort()
      reject(new Error(`no answer within ${Math.round(ms)} ms (the invocation deadline)`))
    }, ms)
    timer.unref()
  })
  try {
    return await Promise.race([call(abort.signal), expired])
  } finally {
    clearTimeout(timer)
  }
}
