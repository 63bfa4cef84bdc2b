// The real API handler served over HTTP on loopback, as API Gateway hands it requests (payload v2, $default route),
// on an engine of its own that reaches Redis through a partitionable primary endpoint. A handler that throws
// answers 502, as API Gateway does for a failed Lambda: the client cannot tell whether the write happened.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { localContext } from '../../tools/sdq-poll/handler-loader'
import { createApiHandler } from '../../src/api/handler'
import { loadConfig } from '../../src/config'
import { createEngine } from '../../src/store/engine'
import { quiet } from './quiet'

export interface ChaosApi {
  url: string
  close(): Promise<void>
}

export async function startApi(env: Record<string, string>): Promise<ChaosApi> {
  // The API Lambda's own settings (functions/api.ts): a short command timeout and one retry.
  const engine = createEngine(loadConfig(env), { commandTimeoutMs: 2_000, maxRetriesPerRequest: 1, logger: quiet })
  engine.redis.on('error', () => undefined)
  const handler = createApiHandler(engine, { logger: quiet }) as unknown as (
    e: APIGatewayProxyEventV2,
    c: Context,
  ) => Promise<{ statusCode: number; headers?: Record<string, string>; body?: string }>
  const server = createServer(async (req, res) => {
    try {
      const body = await bodyOf(req)
      const answer = await handler(eventOf(req, body), localContext('sdq-api', 30_000))
      res.writeHead(answer.statusCode, answer.headers)
      res.end(answer.body)
    } catch {
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end('{"message":"Internal Server Error"}')
    }
  })
  server.keepAliveTimeout = 1_000
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
      await engine.close()
    },
  }
}

function eventOf(req: IncomingMessage, body: string): APIGatewayProxyEventV2 {
  const [rawPath = '/', rawQueryString = ''] = (req.url ?? '/').split('?')
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    ...(rawQueryString ? { queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)) } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: req.method!,
        path: decodeURIComponent(rawPath),
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: '',
      },
      requestId: `req-${Date.now()}`,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(body ? { body } : {}),
    isBase64Encoded: false,
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
