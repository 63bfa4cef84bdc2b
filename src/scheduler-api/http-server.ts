// The Scheduler-compatible handler served over HTTP on loopback, as API Gateway would hand it requests (payload v2
// events): what `npm run dev` runs, and what the tests drive the SDK against.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SchedulerHandler } from './handler'

export interface SchedulerServer {
  url: string
  close(): Promise<void>
}

export async function serveScheduler(handler: SchedulerHandler, port = 0): Promise<SchedulerServer> {
  const server = createServer(async (req, res) => {
    const answer = await handler(await toEvent(req))
    res.writeHead(answer.statusCode, answer.headers)
    res.end(answer.body)
  })
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(port, '127.0.0.1', ok)
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

async function toEvent(req: IncomingMessage): Promise<APIGatewayProxyEventV2> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const [rawPath = '/', rawQueryString = ''] = (req.url ?? '/').split('?') as [string, string?]
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    body: Buffer.concat(chunks).toString(),
    isBase64Encoded: false,
    requestContext: {
      accountId: '',
      http: { method: req.method ?? 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
    },
  } as unknown as APIGatewayProxyEventV2
}
