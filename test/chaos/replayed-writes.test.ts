// Scenario (found by the chaos run, seed 20261126): the API's Redis connection is partitioned; a write times out
// (the API answers 503, the client sends it again); when the partition heals, ioredis resends the commands that were
// written to the broken connection (autoResendUnfulfilledCommands, on by default), the timed-out one included. A
// write whose caller was told it failed then runs after all: a batch create ran twice, its jobs delivered twice.
// Fixed in src/store/redis/redis.ts (skipSettledCommands): a command whose caller was answered is never sent any more.
import { sleep } from '../../devkit/sleep'
import { Redis } from 'ioredis'
import { afterEach, expect, inject, it } from 'vitest'
import { connectRedis, closeRedis } from '../../src/store/redis/redis'
import { startPrimaryProxy, type PrimaryProxy } from './primary-proxy'
import { quiet } from './quiet'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined)
})

it('does not run a write after its command timed out and the connection came back', async () => {
  // prepare: the API's client settings (a short command timeout, one retry), through a partitionable endpoint
  const url = new URL(inject('redisUrl'))
  const proxy: PrimaryProxy = await startPrimaryProxy(async () => `${url.hostname}:${url.port}`)
  cleanup.push(() => proxy.close())
  const client = connectRedis({ url: proxy.url }, { commandTimeoutMs: 300, maxRetriesPerRequest: 1, logger: quiet })
  cleanup.push(() => closeRedis(client))
  const direct = new Redis(inject('redisUrl'))
  cleanup.push(async () => direct.disconnect())
  const key = `chaos-replay-${Date.now()}`
  await client.ping()

  // act: the write times out during the partition; the partition heals and the client reconnects
  proxy.partition()
  await expect(client.set(key, 'written after its timeout')).rejects.toThrow(/timed out/i)
  proxy.heal()
  await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 5_000 }).toBe('PONG')
  await sleep(200)

  // assess: the write its caller saw fail did not run later
  expect(await direct.get(key)).toBeNull()
})
