// A private redis-server for one test file whose memory the test caps (maxmemory with noeviction), and an admin
// connection to read and set it: the suite's shared server is never capped.
import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'

export interface CappedRedis {
  readonly server: LocalRedis
  readonly admin: Redis
  /** INFO memory's used_memory, in bytes. */
  usedMemory(): Promise<number>
}

/** Starts the server before the file's tests and stops it after them; the fields are set once beforeAll ran. */
export function cappedRedisForFile(): CappedRedis {
  const state = {} as { server: LocalRedis; admin: Redis }
  beforeAll(async () => {
    state.server = await startRedis({ extraArgs: ['--maxmemory-policy', 'noeviction'] })
    state.admin = new Redis(state.server.url)
  })
  afterAll(async () => {
    state.admin?.disconnect()
    await state.server?.stop()
  })
  return {
    get server() {
      return state.server
    },
    get admin() {
      return state.admin
    },
    async usedMemory() {
      return Number(/used_memory:(\d+)/.exec(await state.admin.info('memory'))![1])
    },
  }
}
