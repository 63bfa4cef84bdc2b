// The dev stack's API gate (local/api-gate.ts) in front of a loopback upstream that answers each request after 200 ms:
// a burst on a cold stack must not reach serverless-offline all at once (each request that finds no idle worker starts
// a cold one, whose handler load counts toward the function's 10 s timeout), and the gate still reaches its full width.
// And a failed invocation, which serverless-offline answers 200 with its error object, is answered as a failure.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startApiGate, type ApiGate } from '../../local/api-gate'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** The server listening on a free loopback port, closed after the test; its URL. */
async function listening(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  closers.push(
    () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** An upstream that answers every request with `status`, `headers` and `body` at once. */
async function fixedUpstream(status: number, headers: Record<string, string>, body: string) {
  const server = createServer((_req, res) => {
    res.writeHead(status, headers)
    res.end(body)
  })
  return listening(server)
}

/** An upstream that notes, for each request, how many were in flight when it came and how many had been answered. */
async function upstream() {
  let inFlight = 0
  let answered = 0
  const arrivals: { inFlight: number; answered: number }[] = []
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    inFlight++
    arrivals.push({ inFlight, answered })
    setTimeout(() => {
      inFlight--
      answered++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    }, 200)
  })
  return { url: await listening(server), arrivals }
}

describe('the API gate', () => {
  it('lets a burst in two at a time at first, one more slot per answer, up to its 16', async () => {
    // prepare
    const up = await upstream()
    const gate: ApiGate = await startApiGate({ target: up.url })
    closers.push(() => gate.close())
    // act: 60 requests at once
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => fetch(`${gate.url}/jobs/${i}`)))
    // assess: every one answered; the third came only after an answer; never more than 16 at once, and 16 reached
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    expect(up.arrivals.slice(0, 2).map((a) => a.inFlight)).toEqual([1, 2])
    expect(up.arrivals[2]!.answered).toBeGreaterThanOrEqual(1)
    for (const a of up.arrivals) expect(a.inFlight).toBeLessThanOrEqual(Math.min(16, 2 + a.answered))
    expect(Math.max(...up.arrivals.map((a) => a.inFlight))).toBe(16)
  })

  it("answers serverless-offline's 200 for a timed-out invocation as the 504 it is, with the API's error body", async () => {
    // prepare: what serverless-offline 14 answers an HTTP API request whose function timed out (seen under load)
    const timedOut = {
      errorMessage: '[504] - Lambda timeout.',
      errorType: 'LambdaTimeoutError',
      stackTrace: ['Error: [504] - Lambda timeout.', 'at #timeoutAndTerminate (LambdaFunction.js:290:11)'],
    }
    const up = await fixedUpstream(200, { 'content-type': 'application/json' }, JSON.stringify(timedOut))
    const gate = await startApiGate({ target: up })
    closers.push(() => gate.close())
    // act
    const answer = await fetch(`${gate.url}/jobs/never-created`, { method: 'DELETE' })
    // assess: a failure the client sees as one (not "cancelled"), naming what failed
    expect(answer.status).toBe(504)
    expect(await answer.json()).toEqual({
      error: {
        code: 'InternalError',
        message: 'the API function failed (LambdaTimeoutError): [504] - Lambda timeout.',
      },
    })
  })

  it("answers any other failed invocation 502, and passes the API's own answers through unchanged", async () => {
    // prepare: a handler that threw (no [NNN] in its message), and an ordinary 200 of the API
    const threw = { errorMessage: 'boom', errorType: 'TypeError', stackTrace: ['TypeError: boom'] }
    const failed = await startApiGate({ target: await fixedUpstream(200, {}, JSON.stringify(threw)) })
    closers.push(() => failed.close())
    const view = JSON.stringify({ id: 'a', state: 'pending', errorType: 'x' })
    const ok = await startApiGate({
      target: await fixedUpstream(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }, view),
    })
    closers.push(() => ok.close())
    // act
    const [broken, answered] = await Promise.all([fetch(`${failed.url}/stats`), fetch(`${ok.url}/jobs/a`)])
    // assess
    expect(broken.status).toBe(502)
    expect(((await broken.json()) as { error: { message: string } }).error.message).toBe(
      'the API function failed (TypeError): boom',
    )
    expect(answered.status).toBe(200)
    expect(answered.headers.get('cache-control')).toBe('no-store')
    expect(await answered.text()).toBe(view)
  })
})
