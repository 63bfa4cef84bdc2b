// An HTTP proxy between the API and the Lambda endpoint that starts the scan function (serverless-offline's, or any
// other), which injects the faults a start can meet, for benches and tests of on-demand mode:
//   - 'lost': answers 202 as Lambda does for an accepted asynchronous invoke, and never passes it on;
//   - 'throttled': answers 429 TooManyRequestsException, as Lambda's Invoke API does when it throttles;
//   - 'hangs': takes the request and never answers (until close()).
// Faults are queued one per invoke (failNext), or held for a while (failAll). Everything else, and the invoker's
// DryRun warm-up, passes through untouched. Loopback only.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { listenOnLoopback } from '../devkit/loopback-server'

export type InvokeFault = 'lost' | 'throttled' | 'hangs'

export interface LambdaFaultProxy {
  url: string
  /** Where requests go when no fault applies; settable after the proxy is up (the target may start later). */
  target: string
  /** Invoke requests seen, with the fault each met (null: passed through). */
  seen: { at: number; fault: InvokeFault | null }[]
  /** The next requests meet these faults, one each. */
  failNext(...faults: InvokeFault[]): void
  /** Every request meets `fault` until failAll(null). */
  failAll(fault: InvokeFault | null): void
  close(): Promise<void>
}

export async function startLambdaFaultProxy(target = ''): Promise<LambdaFaultProxy> {
  const queued: InvokeFault[] = []
  let always: InvokeFault | null = null
  const seen: LambdaFaultProxy['seen'] = []
  const proxy = { target } as { target: string }
  const server = createServer((req, res) => {
    // The invoker's warm-up (a DryRun at the API's cold start) is no start: it passes, and meets no fault.
    if (req.headers['x-amz-invocation-type'] === 'DryRun') return pass(req, res, proxy.target)
    const fault = queued.shift() ?? always
    seen.push({ at: Date.now(), fault })
    if (fault === 'hangs') return
    if (fault === 'lost') return drain(req, () => answer(res, 202, ''))
    if (fault === 'throttled')
      return drain(req, () =>
        answer(res, 429, JSON.stringify({ Type: 'User', message: 'Rate Exceeded.' }), {
          'x-amzn-errortype': 'TooManyRequestsException',
        }),
      )
    pass(req, res, proxy.target)
  })
  const listening = await listenOnLoopback(server)
  return {
    url: listening.url,
    get target() {
      return proxy.target
    },
    set target(url: string) {
      proxy.target = url
    },
    seen,
    failNext: (...faults) => void queued.push(...faults),
    failAll: (fault) => {
      always = fault
    },
    close: listening.close,
  }
}

function drain(req: IncomingMessage, then: () => void) {
  req.resume()
  req.on('end', then)
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body)
}

function pass(req: IncomingMessage, res: ServerResponse, target: string) {
  const url = new URL(req.url ?? '/', target)
  const out = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answerIn) => {
    res.writeHead(answerIn.statusCode ?? 502, answerIn.headers)
    answerIn.pipe(res)
  })
  out.on('error', () => answer(res, 502, JSON.stringify({ message: 'target unreachable' })))
  req.pipe(out)
}
