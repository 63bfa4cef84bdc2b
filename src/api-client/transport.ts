// One HTTP call of the API: JSON in and out, signed afresh for every attempt (SigV4 signatures carry the time), and
// retried with backoff while the API answers 503 (its job store is unavailable, or a write was not confirmed by a
// replica) or API Gateway throttles (429), unless the answer asks for a longer wait than LONG_RETRY_AFTER_S. A call
// that got no answer at all (connection reset, timeout) is retried only when the caller says it is safe: a job write
// carrying its Idempotency-Key (src/api-client/own-job.ts), never a cancel or a schedule delete, whose retry would
// report 404 for what the first attempt did.
import { apiErrorOf } from './errors'
import type { RequestSigner } from './signer'

export interface RetryPolicy {
  /** Calls in all, the first included. Default 4. */
  attempts: number
  /** Delay before the first retry; it doubles each time, drawn from its upper half (jitter). Default 200 ms. */
  baseDelayMs: number
  /** Longest delay between two attempts, a Retry-After header included. Default 5,000 ms. */
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 }

const RETRIED = new Set([429, 503])
/**
 * A Retry-After over this many seconds is no passing refusal (a deep page of GET /jobs with no room for its walk: 60,
 * a caller over its deep pages: to the end of its minute): thrown at once, since a retry within the policy's delays
 * would be refused again (and a deep page retried spends another of the caller's allowance).
 */
export const LONG_RETRY_AFTER_S = 30

export interface Transport {
  baseUrl: URL
  sign: RequestSigner
  retry: RetryPolicy
  fetch: typeof globalThis.fetch
  /** Per attempt. Default 10 s. */
  timeoutMs: number
}

export interface Answer {
  status: number
  /** How many HTTP attempts the call made (1 when the first was answered). */
  attempts: number
  headers: Headers
  /** The parsed JSON body, or undefined (204). */
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, typed by each client method's return type
  body: any
}

export interface CallOptions {
  /** Statuses answered rather than thrown (a 404 for a lookup). */
  allow?: number[]
  /**
   * Retry a call that got no answer (connection reset, timeout): only for a request that is safe to repeat. A function
   * is asked when that happens (whether it is safe may be learnt from earlier answers).
   */
  retryUnanswered?: boolean | (() => boolean)
  /** Sent on every attempt (the Idempotency-Key of a job write: one per call, the same on each of its attempts). */
  headers?: Record<string, string>
  /** Told of every answer an attempt got (its status and headers), errors included. */
  onAnswer?: (status: number, headers: Headers) => void
}

/**
 * Resolves with a 2xx answer or one of the statuses `allow` names; throws DelayQueueApiError for the rest (its
 * `attempts` says how many HTTP attempts were made: a 409 on a retry may be the first attempt's own write).
 */
export async function call(
  t: Transport,
  method: string,
  path: string,
  body?: unknown,
  { allow = [], retryUnanswered = false, headers: extra, onAnswer }: CallOptions = {},
): Promise<Answer> {
  const url = new URL(t.baseUrl.pathname.replace(/\/$/, '') + path, t.baseUrl)
  const text = body === undefined ? undefined : JSON.stringify(body)
  const headers: Record<string, string> = { accept: 'application/json', ...extra }
  if (text !== undefined) headers['content-type'] = 'application/json'
  for (let attempt = 1; ; attempt++) {
    const signed = await t.sign({ method, url, headers, body: text })
    let res: Response
    let answer: string
    try {
      res = await t.fetch(url, { method, headers: signed, body: text, signal: AbortSignal.timeout(t.timeoutMs) })
      answer = await res.text()
    } catch (e) {
      // No answer: the request may or may not have been carried out.
      const retry = typeof retryUnanswered === 'function' ? retryUnanswered() : retryUnanswered
      if (!retry || attempt >= t.retry.attempts) throw e
      await sleep(retryDelayMs(t.retry, attempt, null))
      continue
    }
    onAnswer?.(res.status, res.headers)
    if (res.ok || allow.includes(res.status)) {
      return {
        status: res.status,
        attempts: attempt,
        headers: res.headers,
        body: answer ? JSON.parse(answer) : undefined,
      }
    }
    const retryAfter = res.headers.get('retry-after')
    const longWait = retryAfter !== null && /^\d+$/.test(retryAfter) && Number(retryAfter) > LONG_RETRY_AFTER_S
    if (!RETRIED.has(res.status) || attempt >= t.retry.attempts || longWait) {
      const error = apiErrorOf(res.status, answer)
      error.attempts = attempt
      throw error
    }
    await sleep(retryDelayMs(t.retry, attempt, retryAfter))
  }
}

/** Exponential backoff with jitter, never less than a Retry-After (seconds) the API asked for, within the cap. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  const jittered = ceiling / 2 + random() * (ceiling / 2)
  const asked = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0
  return Math.min(policy.maxDelayMs, Math.max(jittered, asked))
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
