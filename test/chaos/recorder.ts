// Records client calls into the history: the call's invoke and complete times, and its outcome read from what the
// API client returned or threw. A 4xx answer is a refusal that did nothing ("fail"); a 5xx (503 unavailable or
// unconfirmed by a replica, 500, a 502 from a failed handler) or no answer at all leaves the write indeterminate.
import { DelayQueueApiError } from '../../src/api-client'
import type { Op, Outcome } from './history'

export class Recorder {
  /** `ops` is the history's list, shared by every lane; `calls()` counts the HTTP requests of the lane's own client
   * (its calls are sequential), so each operation records how many attempts it took. */
  constructor(
    readonly ops: Op[] = [],
    private readonly calls: () => number = () => 0,
  ) {}

  /** Adds an operation recorded by hand (the jobs of a batch), numbered now. */
  push(op: Op): void {
    this.ops.push({ ...op, n: this.ops.length })
  }

  /** Runs `call`, recording it; `onOk` fills in what the answer says (status, runAt). Never throws. */
  async record<T>(
    op: Omit<Op, 'n' | 'invokeAt' | 'completeAt' | 'outcome'>,
    call: () => Promise<T>,
    onOk: (answer: T, op: Op) => void = () => undefined,
    onError?: (e: unknown, op: Op) => boolean,
  ): Promise<Op> {
    const entry: Op = { ...op, n: this.ops.length, invokeAt: Date.now(), completeAt: 0, outcome: 'unknown' }
    this.ops.push(entry)
    const before = this.calls()
    try {
      const answer = await call()
      entry.completeAt = Date.now()
      entry.outcome = 'ok'
      entry.attempts = this.calls() - before
      onOk(answer, entry)
    } catch (e) {
      entry.completeAt = Date.now()
      entry.attempts = this.calls() - before
      if (onError?.(e, entry)) return entry
      const { outcome, status, code } = outcomeOf(e)
      entry.outcome = outcome
      if (status !== undefined) entry.status = status
      if (code) entry.code = code
    }
    return entry
  }
}

export function outcomeOf(e: unknown): { outcome: Outcome; status?: number; code?: string } {
  if (e instanceof DelayQueueApiError) {
    return {
      outcome: e.status >= 400 && e.status < 500 && e.status !== 429 ? 'fail' : 'unknown',
      status: e.status,
      code: e.code,
    }
  }
  return { outcome: 'unknown', code: (e as Error)?.name ?? 'Error' }
}
