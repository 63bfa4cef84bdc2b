// What a call's result means for the job: done (2xx), retried through SQS (408, 429, 5xx, no answer in time, a
// connection that failed), or to the DLQ at once (any other answer: no retry turns a 400 into a 200; a redirect, which
// is never followed; a destination the SSRF guard refuses).
import { isIP } from 'node:net'
import type { AddressVerdict } from './address-policy'
import { AddressRefusedError, DeliveryTimeoutError } from './errors'
import type { HttpAnswer } from './send-request'

export type Verdict =
  | { kind: 'delivered'; status: number; excerpt: string }
  | { kind: 'retry'; status?: number; excerpt?: string; reason: string; afterSeconds?: number }
  | { kind: 'dead-letter'; status?: number; excerpt?: string; reason: string }

/** SQS's longest visibility: a Retry-After beyond it is waited as far as SQS can. */
const MAX_RETRY_AFTER_SECONDS = 43_200

export function verdictOfAnswer(
  answer: HttpAnswer,
  judge: (address: string) => AddressVerdict,
  nowMs: number,
): Verdict {
  const { status, excerpt } = answer
  if (status >= 200 && status < 300) return { kind: 'delivered', status, excerpt }
  if (status === 408 || status === 429 || status >= 500) {
    const afterSeconds = retryAfterSeconds(header(answer, 'retry-after'), nowMs)
    return {
      kind: 'retry',
      status,
      excerpt,
      reason: `answered ${status}`,
      ...(afterSeconds === undefined ? {} : { afterSeconds }),
    }
  }
  if (status >= 300 && status < 400) {
    const location = header(answer, 'location') ?? ''
    return { kind: 'dead-letter', status, excerpt, reason: `redirect not followed${redirectNote(location, judge)}` }
  }
  return { kind: 'dead-letter', status, excerpt, reason: `answered ${status}` }
}

export function verdictOfError(error: unknown): Verdict {
  if (error instanceof AddressRefusedError) return { kind: 'dead-letter', reason: error.message }
  if (error instanceof DeliveryTimeoutError) return { kind: 'retry', reason: error.message }
  const e = error as NodeJS.ErrnoException
  return { kind: 'retry', reason: `no answer: ${e?.code ? `${e.code} ` : ''}${e?.message ?? String(error)}`.trim() }
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined
  const text = value.trim()
  const seconds = /^\d+$/.test(text) ? Number(text) : (Date.parse(text) - nowMs) / 1000
  if (!Number.isFinite(seconds)) return undefined
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil(seconds)))
}

function header(answer: HttpAnswer, name: string): string | undefined {
  const v = answer.headers[name]
  return Array.isArray(v) ? v[0] : v
}

/**
 * Says where a redirect pointed, and whether the guard would have refused it (169.254.169.254: the metadata). The
 * reason goes to the record, the DLQ attribute, logs and the failure callback: the Location's user info, query and
 * fragment (a login's code, a signed URL's token) are left out.
 */
function redirectNote(location: string, judge: (address: string) => AddressVerdict): string {
  if (!location) return ''
  let url: URL
  try {
    url = new URL(location)
  } catch {
    return ` (Location: ${location.split(/[?#]/)[0]!.slice(0, 200)})`
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const verdict: AddressVerdict = isIP(host) ? judge(host) : { allowed: true }
  const refused = verdict.allowed ? '' : `; its address is refused: ${verdict.reason}`
  const shown = url.protocol === 'http:' || url.protocol === 'https:' ? `${url.origin}${url.pathname}` : url.protocol
  return ` (Location: ${shown.slice(0, 200)}${refused})`
}
