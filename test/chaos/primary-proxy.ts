// A loopback TCP endpoint that always leads to the current Redis primary (it asks a sentinel every 100 ms and drops
// its connections when the answer changes), like a managed service's primary endpoint, and that can be partitioned:
// while partitioned, bytes in both directions are swallowed (requests may have run, their answers never arrive) and
// new connections hang; when the partition heals, every connection it held is reset, as TCP keepalive would.
// The chaos run puts one in front of the API and of some scanners, so each can be cut off from Redis on its own.
import { sleep } from '../../devkit/sleep'
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface PrimaryProxy {
  url: string
  partition(): void
  heal(): void
  close(): Promise<void>
}

export async function startPrimaryProxy(currentPrimary: () => Promise<string>): Promise<PrimaryProxy> {
  let target = await currentPrimary()
  let partitioned = false
  const pairs = new Set<[Socket, Socket | undefined]>()
  const drop = (pair: [Socket, Socket | undefined]) => {
    pair[0].destroy()
    pair[1]?.destroy()
    pairs.delete(pair)
  }
  const server: Server = createServer((client) => {
    const pair: [Socket, Socket | undefined] = [client, undefined]
    pairs.add(pair)
    client.on('error', () => drop(pair))
    client.on('close', () => drop(pair))
    if (partitioned) return // hangs until the partition heals
    const [host, port] = target.split(':')
    const upstream = connect(Number(port), host)
    pair[1] = upstream
    upstream.on('error', () => drop(pair))
    upstream.on('close', () => drop(pair))
    client.on('data', (d) => {
      if (!partitioned) upstream.write(d)
    })
    upstream.on('data', (d) => {
      if (!partitioned) client.write(d)
    })
  })
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', ok)
  })
  let closed = false
  const follow = async () => {
    while (!closed) {
      await sleep(100)
      if (closed) return
      const now = await currentPrimary().catch(() => target)
      if (now !== target) {
        target = now
        for (const pair of [...pairs]) drop(pair)
      }
    }
  }
  void follow()
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    partition: () => {
      partitioned = true
    },
    heal: () => {
      partitioned = false
      for (const pair of [...pairs]) drop(pair)
    },
    close: () =>
      new Promise<void>((ok) => {
        closed = true
        for (const pair of [...pairs]) drop(pair)
        server.close(() => ok())
      }),
  }
}
