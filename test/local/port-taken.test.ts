// A local part is ready only once it listens itself: a port that another process holds (a free port taken between
// freePort() and the child's bind) is a PortTakenError naming it, which the starters answer with another port; not a
// server that "accepts connections" because someone else does.
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { startOffline } from '../../local/offline'
import { freePort, PortTakenError } from '../../local/ports'
import { startRedis, type LocalRedis } from '../../local/redis-server'

const started: LocalRedis[] = []
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()))
})

describe('a local redis-server start', () => {
  it('fails with PortTakenError when another process already listens on its port', async () => {
    // prepare: a server holding the port
    const holder = await startRedis()
    started.push(holder)
    // act
    const second = startRedis({ port: holder.port })
    // assess: the second one exited (its bind failed); the holder was not taken for it
    await expect(second).rejects.toBeInstanceOf(PortTakenError)
    await expect(second).rejects.toThrow(/Address already in use/)
    expect(holder.process.exitCode).toBeNull()
  })

  it('is ready once it has bound its own port, and answers there', async () => {
    // act
    const server = await startRedis()
    started.push(server)
    // assess
    const client = new Redis(server.url)
    try {
      const info = await client.info('server')
      expect(info).toContain(`process_id:${server.process.pid}`)
    } finally {
      client.disconnect()
    }
  })
})

describe('a local serverless-offline start', () => {
  it('fails with PortTakenError naming the port when its HTTP port is taken, whatever it prints after', async () => {
    // prepare: a listener holding the port
    const held = createServer()
    await new Promise<void>((ok) => held.listen(0, '127.0.0.1', () => ok()))
    const port = (held.address() as { port: number }).port
    try {
      // act
      const start = startOffline({
        root: process.cwd(),
        stage: 'local',
        httpPort: port,
        lambdaPort: await freePort(),
        websocketPort: await freePort(),
        albPort: await freePort(),
        env: { ...process.env },
        onOutput: () => {},
      })
      // assess
      await expect(start).rejects.toBeInstanceOf(PortTakenError)
      await expect(start).rejects.toThrow(new RegExp(`EADDRINUSE.*${port}`))
    } finally {
      held.close()
    }
  }, 60_000)
})
