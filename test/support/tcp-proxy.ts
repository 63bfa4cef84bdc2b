// A TCP proxy on loopback that can cut its target off and restore it: the "SQS endpoint down" fault in tests and the
// fault suite. While cut, new connections are refused at once and open ones are destroyed. `replyDelayMs` holds what
// the target sends back that long (in order): a slow path back, e.g. a client whose reading of Redis's clock is off.
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  url: string
  /** Client connections accepted so far (a test can tell a kept-alive connection from a new one). */
  connections: number
  cut(): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(targetPort: number, listenPort = 0, replyDelayMs = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = listenPort
  let connections = 0

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        connections++
        const upstream = connect(targetPort, '127.0.0.1')
        for (const s of [client, upstream]) {
          sockets.add(s)
          s.on('close', () => sockets.delete(s))
          s.on('error', () => {
            client.destroy()
            upstream.destroy()
          })
        }
        client.pipe(upstream)
        if (replyDelayMs > 0) {
          upstream.on('data', (chunk) => setTimeout(() => client.write(chunk), replyDelayMs))
          upstream.on('end', () => setTimeout(() => client.end(), replyDelayMs))
        } else upstream.pipe(client)
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })

  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      sockets.clear()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })

  await listen()
  return {
    get port() {
      return port
    },
    get url() {
      return `http://127.0.0.1:${port}`
    },
    get connections() {
      return connections
    },
    cut: stop,
    restore: async () => {
      if (!server) await listen()
    },
    close: stop,
  }
}
