// A deep page of GET /jobs refused for want of room for its walk's state (PendingPageBusyError) is answered 503 with
// a Retry-After of a minute and its own log line, and the api-client gives it back at once rather than spend the
// caller's deep pages on quick retries; a passing 503 (Retry-After: 1) is still retried.
import { describe, expect, it } from 'vitest'
import { errorResponse } from '../../src/api/error-response'
import { DelayQueueApiClient, DelayQueueApiError } from '../../src/api-client'
import { PendingPageBusyError } from '../../src/errors'
import type { Log } from '../../src/logger'

const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }

/** A client whose every request is answered by `answer` (an API on no network at all), and the requests it made. */
function clientAnswered(answer: () => Response) {
  const requests: string[] = []
  const fetch = (async (url: string | URL | Request) => {
    requests.push(String(url))
    return answer()
  }) as typeof globalThis.fetch
  const retry = { attempts: 4, baseDelayMs: 1, maxDelayMs: 5 }
  return {
    requests,
    client: new DelayQueueApiClient({ url: 'http://127.0.0.1:9/', region: 'eu-west-1', credentials, retry, fetch }),
  }
}

describe('a deep page with no room for its walk', () => {
  it('is answered 503 with Retry-After: 60 and its own log line', () => {
    // prepare
    const logs: string[] = []
    const log: Log = { info: () => {}, warn: (m: string) => void logs.push(m), error: () => {} }
    // act
    const answer = errorResponse(new PendingPageBusyError(), log, 'req-1')
    // assess
    expect(answer.statusCode).toBe(503)
    expect(answer.headers?.['retry-after']).toBe('60')
    expect(JSON.parse(String(answer.body)).error.code).toBe('ServiceUnavailable')
    expect(logs).toEqual(['deep page of GET /jobs refused: no room for its walk state'])
  })

  it('is thrown by the api-client after one request; a 503 with Retry-After: 1 is retried', async () => {
    // prepare: an API answering every request 503, with a long and with a short Retry-After
    const body = JSON.stringify({ error: { code: 'ServiceUnavailable', message: 'retry in a minute' } })
    const busy = clientAnswered(() => new Response(body, { status: 503, headers: { 'retry-after': '60' } }))
    const passing = clientAnswered(() => new Response(body, { status: 503, headers: { 'retry-after': '1' } }))
    // act
    const thrown = await busy.client.listPending({ limit: 10, cursor: 'c' }).catch((e: unknown) => e)
    const retried = await passing.client.listPending({ limit: 10 }).catch((e: unknown) => e)
    // assess
    expect(thrown).toBeInstanceOf(DelayQueueApiError)
    expect((thrown as DelayQueueApiError).status).toBe(503)
    expect((thrown as DelayQueueApiError).attempts).toBe(1)
    expect(busy.requests).toHaveLength(1)
    expect((retried as DelayQueueApiError).attempts).toBe(4)
  })
})
