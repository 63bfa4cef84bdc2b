// The real API handler served over HTTP on loopback, as API Gateway would hand it requests (payload v2 events, with
// the $default route key: the handler's router matches method and path). Every request is recorded as it arrived.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { lambdaContext } from './lambda'

export interface ReceivedRequest {
  method: string
  /** Path and query as sent. */
  url: string
  headers: Record<string, string>
  body: string
  /** The status the handler answered. */
  status?: number
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>

export interface ApiServer {
  url: string
  received: ReceivedRequest[]
  /** Called after each answer went out (tests restore a dependency there). */
  onAnswered?: (request: ReceivedRequest) => void
  close(): Promise<void>
}

export async function serveApi(handler: Handler): Promise<ApiServer> {
  const received: ReceivedRequest[] = []
  const api: ApiServer = { url: '', received, close: async () => {} }
  const server = createServer(async (req, res) => {
    const request: ReceivedRequest = {
      method: req.method!,
      url: req.url!,
      headers: headersOf(req),
      body: await bodyOf(req),
    }
    received.push(request)
    const answer = (await handler(toEvent(request), lambdaContext({ name: 'sdq-api' }))) as {
      statusCode: number
      headers?: Record<string, string>
      body?: string
    }
    request.status = answer.statusCode
    res.writeHead(answer.statusCode, answer.headers)
    res.end(answer.body)
    api.onAnswered?.(request)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  api.close = () => new Promise<void>((ok) => server.close(() => ok()))
  return api
}

function toEvent(r: ReceivedRequest): APIGatewayProxyEventV2 {
  const [rawPath, rawQueryString = ''] = r.url.split('?') as [string, string?]
  const path = decodeURIComponent(rawPath)
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: r.headers,
    ...(rawQueryString ? { queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)) } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: r.headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: r.method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: r.headers['user-agent'] ?? '',
      },
      requestId: `req-${Date.now()}`,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(r.body ? { body: r.body } : {}),
    isBase64Encoded: false,
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : v
  return out
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
