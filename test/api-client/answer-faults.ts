// Fetches for the api-client's retry tests that let one request reach the API and then change what the client sees
// of it: the real answer after something ran meanwhile (a drain to SQS), a 503 in its place, or a dropped connection.
// Every other request goes through untouched.

type Fetch = typeof globalThis.fetch

/** What the client sees of the intercepted request, which the API has handled. */
export type Seen = 'answer' | '503' | 'dropped'

/** The 503 a gateway or a lost answer leaves the client with. */
export const unavailable = () =>
  new Response(JSON.stringify({ error: { code: 'ServiceUnavailable', message: 'lost' } }), { status: 503 })

/**
 * A fetch that intercepts the next `method` request once armed (`arm()`; armed from the start unless `armed` is
 * false): it reaches the API, then `meanwhile` runs, then the client sees what `seen` says.
 */
export function answerFault(
  method: string,
  seen: Seen,
  meanwhile: () => Promise<unknown> = async () => undefined,
  armed = true,
) {
  let intercept = armed
  const faulty: Fetch = async (url, init) => {
    const res = await fetch(url, init)
    if (!intercept || init?.method !== method) return res
    intercept = false
    await meanwhile()
    if (seen === 'dropped') throw new TypeError('fetch failed: other side closed')
    return seen === '503' ? unavailable() : res
  }
  return {
    fetch: faulty,
    arm: () => {
      intercept = true
    },
  }
}

/** The first `method` request reaches the API; `meanwhile` runs before the client sees `seen`. */
export const afterFirst = (method: string, seen: Seen, meanwhile?: () => Promise<unknown>): Fetch =>
  answerFault(method, seen, meanwhile).fetch
