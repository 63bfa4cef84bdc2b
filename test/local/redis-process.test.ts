// A local redis-server is ready only once it listens itself: a port that another process holds (a free port taken
// between freePort() and the bind) is an error naming it, not a server that "accepts connections".
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { PortTakenError } from '../../local/redis-process'
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
