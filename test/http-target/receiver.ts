// A webhook receiver on loopback for the forwarder's tests: it verifies every delivery with the `standardwebhooks`
// package (not our code), counts deliveries per webhook-id, and answers per path:
//   /ok        200
//   /busy      503 with Retry-After: 2 on the first call of an id, then 200
//   /bad       400
//   /hang      never answers the first call of an id (the forwarder must cut it), then 200
//   /redirect  302 to the instance metadata address
//   /markup    422 with a body that runs script if a page inserted it as HTML
//   /gate      503 with Retry-After: 1 until openGate() is called, then 200
import { createServer, type IncomingMessage } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'

export interface Delivery {
  id: string
  path: string
  body: string
  headers: IncomingMessage['headers']
  at: number
}

export interface Receiver extends LoopbackServer {
  deliveries: Delivery[]
  badSignatures: number
  /** Calls per webhook-id, successful answers only (2xx). */
  successes: Map<string, number>
  /** From now on /gate answers 200. */
  openGate(): void
}

/** What /markup answers. */
export const MARKUP = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>no such order</b>'

export async function startReceiver(secret: string): Promise<Receiver> {
  const verifier = new Webhook(secret)
  const deliveries: Delivery[] = []
  const successes = new Map<string, number>()
  const seen = new Map<string, number>()
  let badSignatures = 0
  let gateOpen = false
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const id = String(req.headers['webhook-id'] ?? '')
      try {
        verifier.verify(body, req.headers as Record<string, string>, { jsonParse: false })
      } catch {
        badSignatures++
      }
      const path = (req.url ?? '/').split('?')[0]!
      deliveries.push({ id, path, body, headers: req.headers, at: performance.now() })
      const calls = (seen.get(id) ?? 0) + 1
      seen.set(id, calls)
      const ok = () => {
        successes.set(id, (successes.get(id) ?? 0) + 1)
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${id}`)
      }
      if (path === '/ok') return ok()
      if (path === '/busy') return calls === 1 ? res.writeHead(503, { 'retry-after': '2' }).end('busy') : ok()
      if (path === '/bad')
        return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no such order"}')
      if (path === '/hang') return calls === 1 ? undefined : ok()
      if (path === '/gate') return gateOpen ? ok() : res.writeHead(503, { 'retry-after': '1' }).end('closed')
      if (path === '/markup') return res.writeHead(422, { 'content-type': 'text/html' }).end(MARKUP)
      if (path === '/redirect') {
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/' }).end()
      }
      res.writeHead(404).end()
    })
  })
  const served = await listenOnLoopback(server)
  return {
    ...served,
    deliveries,
    successes,
    openGate: () => {
      gateOpen = true
    },
    get badSignatures() {
      return badSignatures
    },
  }
}
