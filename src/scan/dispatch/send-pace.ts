// How hard the dispatcher may push SQS right now: how many SendMessageBatch calls it keeps in flight, and how long
// one call may wait for its answer. Both follow what SQS's answers show, so that a slow SQS (a brownout) meets fewer,
// more patient calls instead of more copies.
//
// Why it matters. A call that times out may have been carried out: its jobs are released as "maybe sent" and sent
// again, and each such send can be one more copy in SQS. With a fixed timeout, an SQS that answers slower than it
// makes every call a copy, and the copies add load that slows it further: a loop that feeds itself. So:
//  - the timeout follows the answers: an answer that took more than a third of the timeout raises it to three times
//    that answer, a timeout doubles it (up to the ceiling the lease allows), fast answers bring it back down slowly;
//  - the calls in flight follow AIMD (TCP's congestion control): a round of timeouts halves them, every answer
//    well inside the timeout adds one back, up to SEND_CONCURRENCY;
//  - a job whose send timed out waits at least one current timeout before it is sent again (holdMs).
// One decrease per round: the calls in flight when SQS slowed down all time out together, and that is one signal.

export interface SendPaceOptions {
  /** SEND_CONCURRENCY: the most calls in flight, and where the pace starts. */
  maxInFlight: number
  /** The timeout of one call while SQS answers quickly (sendTimeoutMs: a quarter of the lease). */
  baseTimeoutMs: number
  /** The longest one call may take: its jobs' leases must outlast it (maxSendMs). */
  maxTimeoutMs: number
  /** This process's clock (tests pass a fake one). */
  now?: () => number
}

/** What the pace did, for the loop's report and the log. */
export interface PaceChange {
  inFlight: number
  timeoutMs: number
}

export class SendPace {
  private limit: number
  private timeout: number
  /** When the last round of timeouts began to count: timeouts of calls sent before it are that same round. */
  private roundStartedAt = Number.NEGATIVE_INFINITY
  private readonly now: () => number
  /** Calls that ended in a timeout, since this pace was made. */
  timeouts = 0

  constructor(private readonly options: SendPaceOptions) {
    this.limit = Math.max(1, options.maxInFlight)
    this.timeout = Math.min(options.baseTimeoutMs, options.maxTimeoutMs)
    this.now = options.now ?? Date.now
  }

  /** Calls that may be in flight now. */
  get inFlight(): number {
    return this.limit
  }

  /** The timeout for a call that starts now. */
  get timeoutMs(): number {
    return this.timeout
  }

  /**
   * How long a job whose send timed out waits before it is sent again, at least: the answers SQS gives now may take
   * that long, and a send sooner would more likely add a copy than find a message that never arrived.
   */
  get holdMs(): number {
    return this.timeout
  }

  /** SQS answered a call (accepted or refused its entries) that had started at `startedAtMs`. */
  answered(startedAtMs: number): void {
    const tookMs = Math.max(0, this.now() - startedAtMs)
    const { baseTimeoutMs, maxTimeoutMs, maxInFlight } = this.options
    // Three answers' time: room for answers a little slower than this one, and, in a steady state, answers well
    // inside the timeout, so the calls in flight can grow back (at 2x they would stand still at half the timeout).
    const wanted = Math.min(maxTimeoutMs, Math.max(baseTimeoutMs, 3 * tookMs))
    // Up at once (the next call must not time out on an answer this slow), down slowly (one quick answer is no
    // proof the brownout is over).
    this.timeout = wanted >= this.timeout ? wanted : Math.round(this.timeout - (this.timeout - wanted) / 8)
    if (2 * tookMs < this.timeout && this.limit < maxInFlight) this.limit++
  }

  /**
   * A call that had started at `startedAtMs` timed out. Returns what changed when this timeout began a new round
   * (the calls in flight halved, the timeout doubled), else null: the other calls of the round tell nothing new.
   */
  timedOut(startedAtMs: number): PaceChange | null {
    this.timeouts++
    if (startedAtMs < this.roundStartedAt) return null
    this.roundStartedAt = this.now()
    this.limit = Math.max(1, Math.floor(this.limit / 2))
    this.timeout = Math.min(this.options.maxTimeoutMs, this.timeout * 2)
    return { inFlight: this.limit, timeoutMs: this.timeout }
  }
}
