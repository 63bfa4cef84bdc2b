// One HTTP call of the API: JSON in and out, signed afresh for every attempt (SigV4 signatures carry the time), and
// retried with backoff while the API answers 503 (its job store is unavailable) or API Gateway throttles (429).
// Nothing else is retried: a job sent without an id could otherwise be scheduled twice.
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
  headers: Headers
  /** The parsed JSON body, or undefined (204). */
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, typed by each client method's return type
  body: any
}

/** Resolves with a 2xx answer or one of the statuses `allow` names; throws DelayQueueApiError for the rest. */
export async function call(
  t: Transport,
  method: string,
  path: string,
  body?: unknown,
  allow: number[] = [],
): Promise<Answer> {
  const url = new URL(t.baseUrl.pathname.replace(/\/$/, '') + path, t.baseUrl)
  const text = body === undefined ? undefined : JSON.stringify(body)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (text !== undefined) headers['content-type'] = 'application/json'
  for (let attempt = 1; ; attempt++) {
    const signed = await t.sign({ method, url, headers, body: text })
    const res = await t.fetch(url, { method, headers: signed, body: text, signal: AbortSignal.timeout(t.timeoutMs) })
    const answer = await res.text()
    if (res.ok || allow.includes(res.status)) {
      return { status: res.status, headers: res.headers, body: answer ? JSON.parse(answer) : undefined }
    }
    if (!RETRIED.has(res.status) || attempt >= t.retry.attempts) throw apiErrorOf(res.status, answer)
    await sleep(retryDelayMs(t.retry, attempt, res.headers.get('retry-after')))
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
