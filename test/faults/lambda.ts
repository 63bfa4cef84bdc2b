// Minimal Lambda inputs for the fault and fuzz suites: an HTTP API (payload v2) event and a context.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'

export interface EventOptions {
  /** Raw body text (no JSON encoding); `body` is JSON-encoded instead. */
  rawBody?: string
  base64?: boolean
  contentType?: string | null
  headers?: Record<string, string>
  /** API Gateway's routeKey: by default the route a real HTTP API would match, `$default` for anything else. */
  routeKey?: string
}

const ROUTE_KEYS = ['POST /jobs', 'POST /jobs/batch', 'GET /stats']

export function apiEvent(method: string, path: string, body?: unknown, o: EventOptions = {}): APIGatewayProxyEventV2 {
  const idRoute = /^\/jobs\/[^/]+$/.test(path) && !(method === 'POST' && path === '/jobs/batch')
  const routeKey =
    o.routeKey ??
    (idRoute && ['GET', 'PUT', 'DELETE'].includes(method)
      ? `${method} /jobs/{id}`
      : ROUTE_KEYS.includes(`${method} ${path}`)
        ? `${method} ${path}`
        : '$default')
  let text = o.rawBody ?? (body === undefined ? undefined : JSON.stringify(body))
  if (text !== undefined && o.base64) text = Buffer.from(text, 'latin1').toString('base64')
  const headers: Record<string, string> = { host: 'api.example.test', ...o.headers }
  const contentType = o.contentType === undefined ? (text !== undefined ? 'application/json' : null) : o.contentType
  if (contentType !== null) headers['content-type'] = contentType
  let id: string | undefined
  if (idRoute && routeKey.endsWith('{id}')) {
    try {
      id = decodeURIComponent(path.slice('/jobs/'.length))
    } catch {
      id = path.slice('/jobs/'.length) // API Gateway passes an undecodable segment through as is
    }
  }
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers,
    ...(id !== undefined ? { pathParameters: { id } } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'faults',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'fault-suite' },
      requestId: 'req',
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body: text,
    isBase64Encoded: Boolean(o.base64),
  }
}

export function lambdaContext(budgetMs: number): Context {
  const end = Date.now() + budgetMs
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'sdq-faults',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:sdq-faults',
    memoryLimitInMB: '512',
    awsRequestId: 'fault-request',
    logGroupName: '/aws/lambda/sdq-faults',
    logStreamName: 'faults',
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }
}
