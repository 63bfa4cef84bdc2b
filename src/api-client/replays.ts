// What one client instance has learnt of the API's replays: whether a job write sent again with its Idempotency-Key,
// after its job has left for SQS, is still answered from the job's dispatch receipt (and for how long). The API says
// so on every answer of a job write (the `Idempotency-Replay-Window-Ms` header: DISPATCH_RECEIPT_TTL_MS, absent
// when receipts are off; src/api/replay-window.ts). An API that keeps no receipts, or one from before keys were
// honoured, sends none: a PUT whose answer was lost is then not safe to send again blindly (applied, and dispatched
// since, it would be created a second time), and reschedule() throws its error instead (a 503 or a 429, answered,
// is still sent again on its key).
import type { RetryPolicy } from './transport'

const HEADER = 'idempotency-replay-window-ms'

export class ReplayWindow {
  /** The window last seen, ms; 0 until an answer showed one. */
  private windowMs = 0

  /**
   * Learns from one answer of a job write. A success without the header comes from an API that keeps no replays
   * (now): forgotten. An error without it may be API Gateway's own (a 429 throttle) and changes nothing.
   */
  readonly seen = (status: number, headers: Headers): void => {
    const value = headers.get(HEADER)
    if (value !== null) this.windowMs = /^\d{1,15}$/.test(value) ? Number(value) : 0
    else if (status >= 200 && status < 300) this.windowMs = 0
  }

  /**
   * Whether a write whose answer was lost may be sent again on its key alone: the API keeps a dispatched job's receipt
   * at least as long as the call's attempts can take (each up to its timeout and the longest pause before the next).
   */
  coversRetries(retry: RetryPolicy, timeoutMs: number): boolean {
    return this.windowMs > 0 && this.windowMs >= retry.attempts * (timeoutMs + retry.maxDelayMs)
  }
}
