// The adapter that lets Powertools' cache persistence layer (node-redis style calls) use an ioredis client.
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { ioredisCacheClient } from '../../src/consumer/idempotency'

const redis = new Redis(inject('redisUrl'))
afterAll(() => redis.quit())

describe('ioredisCacheClient', () => {
  it('sets only when absent with NX, with an expiry, reads back and deletes a list of keys', async () => {
    // prepare
    const client = ioredisCacheClient(redis)
    const key = `test:idem:${randomUUID()}`
    // act / assess
    expect(await client.set(key, '{"status":"INPROGRESS"}', { EX: 60, NX: true })).toBe('OK')
    expect(await client.set(key, '{"status":"other"}', { EX: 60, NX: true })).toBeNull()
    expect(await client.get(key)).toBe('{"status":"INPROGRESS"}')
    const ttl = await redis.ttl(key)
    expect(ttl).toBeGreaterThan(55)
    expect(ttl).toBeLessThanOrEqual(60)
    expect(await client.set(key, '{"status":"COMPLETED"}', { EX: 0 })).toBe('OK') // an expiry at "now" still stores
    expect(await redis.ttl(key)).toBe(1)
    expect(await client.del([key, `${key}:lock`])).toBe(1)
    expect(await client.get(key)).toBeNull()
    expect(await client.del([])).toBe(0)
  })
})
