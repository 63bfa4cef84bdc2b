import { connect, createServer } from 'node:net'

/**
 * A child could not bind its port: another process took it between freePort() (which releases the port it found) and
 * the child's bind. The caller picks another port and starts again.
 */
export class PortTakenError extends Error {
  override name = 'PortTakenError'
}

/**
 * Runs `start`, which picks its ports with freePort(), again when one was taken before its child bound it (3 tries in
 * all): the one place that answers a PortTakenError.
 */
export async function onFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (e) {
      if (!(e instanceof PortTakenError) || attempt === 3) throw e
    }
  }
}

/** A free TCP port on loopback (the OS picks it; we release it and hand it to a child). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** Whether something accepts a TCP connection on `host:port` now (the connection is closed again at once). */
export function acceptsConnections(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, host)
    sock.once('connect', () => {
      sock.destroy()
      resolve(true)
    })
    sock.once('error', () => resolve(false))
  })
}

/** Whether something accepts connections at the host and port of `url`. */
export function listeningAt(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return acceptsConnections(Number(port), hostname)
}
