// An unreachable Redis fails commands with a clear error and is reported at a bounded rate, not once per retry.
import { describe, expect, it } from 'vitest'
import { freePort } from '../../local/ports'
import { Keyspace } from '../../src/store/keys'
import { connectRedis } from '../../src/store/redis'
import { JobStore } from '../../src/store/job-store'
import { StoreUnavailableError } from '../../src/errors'

function recorder(into: Record<string, unknown>[]) {
  const push = (_message: string, ...extra: Record<string, unknown>[]) => void into.push(Object.assign({}, ...extra))
  return { info: push, warn: push, error: push }
}

describe('redis connection errors', () => {
  it('answers StoreUnavailableError and reports connection errors at most once per 10 s', async () => {
    // prepare: nothing listens on this port
    const reports: Record<string, unknown>[] = []
    const redis = connectRedis(
      { url: `redis://127.0.0.1:${await freePort()}` },
      { maxRetriesPerRequest: 1, logger: recorder(reports) },
    )
    const store = new JobStore(redis, new Keyspace({ prefix: 'down', shards: 1, buckets: 1 }))
    // act: a second of reconnect attempts (every 50-1000 ms)
    const error = await store.get('x').catch((e) => e)
    await new Promise((r) => setTimeout(r, 1_000))
    redis.disconnect()
    // assess
    expect(error).toBeInstanceOf(StoreUnavailableError)
    expect(reports).toHaveLength(1)
  })
})
