// A test server (HTTP or plain TCP) on a free loopback port that can always be closed: it keeps its connections, so
// close() ends those it holds open on purpose (a request it never answers) instead of waiting for them.
import type { AddressInfo, Server, Socket } from 'node:net'

export interface LoopbackServer {
  url: string
  port: number
  close(): Promise<void>
}

export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('error', () => undefined)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
