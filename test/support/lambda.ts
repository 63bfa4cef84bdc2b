// Lambda inputs for tests: an HTTP API (payload v2) event as API Gateway sends it, and a Lambda context.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { randomUUID } from 'node:crypto'
import { localContext } from '../../tools/sdq-poll/handler-loader'

export interface EventOptions {
  /** Raw body text (no JSON encoding); `body` is JSON-encoded instead. */
  rawBody?: string
  /** Exact bytes, sent base64-encoded (as API Gateway does for bodies it cannot pass as text). */
  rawBytes?: Buffer
  /** Send the (UTF-8) body base64-encoded. */
  base64?: boolean
  contentType?: string | null
  headers?: Record<string, string>
  /** Query string parameters. */
  query?: Record<string, string>
  /** API Gateway's routeKey: by default the route a real HTTP API would match, `$default` for anything else. */
  routeKey?: string
}

const ROUTE_KEYS = ['GET /jobs', 'POST /jobs', 'POST /jobs/batch', 'GET /stats']

export function apiEvent(method: string, path: string, body?: unknown, o: EventOptions = {}): APIGatewayProxyEventV2 {
  const idRoute = /^\/jobs\/[^/]+$/.test(path) && !(method === 'POST' && path === '/jobs/batch')
  const routeKey =
    o.routeKey ??
    (idRoute && ['GET', 'PUT', 'DELETE'].includes(method)
      ? `${method} /jobs/{id}`
      : ROUTE_KEYS.includes(`${method} ${path}`)
        ? `${method} ${path}`
        : '$default')
  let text = o.rawBytes
    ? o.rawBytes.toString('base64')
    : (o.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)))
  if (text !== undefined && o.base64 && !o.rawBytes) text = Buffer.from(text, 'utf8').toString('base64')
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
    rawQueryString: new URLSearchParams(o.query ?? {}).toString(),
    ...(o.query ? { queryStringParameters: o.query } : {}),
    headers,
    ...(id !== undefined ? { pathParameters: { id } } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req',
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body: text,
    isBase64Encoded: Boolean(o.base64 || o.rawBytes),
  }
}

/** A Lambda context; `getRemainingTimeInMillis` counts down from `budgetMs`. */
export function lambdaContext(options: { name?: string; budgetMs?: number; requestId?: string } = {}): Context {
  return {
    ...localContext(options.name ?? 'sdq-test', options.budgetMs ?? 30_000),
    memoryLimitInMB: '512',
    awsRequestId: options.requestId ?? randomUUID(),
    logStreamName: 'test',
  }
}

/**
 * A Lambda Function URL event (payload v2, like the HTTP API's) for `method path`: no route matching happens before
 * the handler (routeKey `$default`, no pathParameters), the domain is `<id>.lambda-url.<region>.on.aws`, and with
 * AWS_IAM auth requestContext.authorizer.iam describes the signer.
 */
export function functionUrlEvent(
  method: string,
  path: string,
  body?: unknown,
  o: Omit<EventOptions, 'routeKey'> = {},
): APIGatewayProxyEventV2 {
  const event = apiEvent(method, path, body, { ...o, routeKey: '$default' })
  const [rawPath, rawQueryString = ''] = path.split('?') as [string, string?]
  const domainName = 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws'
  const iam = {
    accessKey: 'AKIAEXAMPLE',
    accountId: '000000000000',
    callerId: 'AIDAEXAMPLE',
    userArn: 'arn:aws:iam::000000000000:user/caller',
    userId: 'AIDAEXAMPLE',
  }
  // Function URL events carry the IAM caller in requestContext.authorizer.iam, a field the v2 event type lacks.
  const requestContext = { ...event.requestContext, authorizer: { iam } } as APIGatewayProxyEventV2['requestContext']
  return {
    ...event,
    rawPath,
    rawQueryString,
    headers: { ...event.headers, host: domainName, 'x-amzn-trace-id': 'Root=1-00000000-000000000000000000000000' },
    requestContext: {
      ...requestContext,
      apiId: 'abcdefghijklmnopqrstuvwxyz012345',
      domainName,
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz012345',
      http: { ...event.requestContext.http, path: rawPath },
    },
  }
}
