// An unreachable Redis fails commands with a clear error and is reported at a bounded rate, not once per retry.
import { sleep } from '../../devkit/sleep'
import { describe, expect, it } from 'vitest'
import { freePort } from '../../local/ports'
import { Keyspace } from '../../src/store/keys'
import { connectRedis } from '../../src/store/redis/redis'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { StoreUnavailableError } from '../../src/errors'
import { guard } from '../../src/store/redis/redis-errors'

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
    const store = new JobStore(
      redis,
      new Keyspace({ prefix: 'down', shards: 1, buckets: 1 }),
      undefined,
      NO_REPLICA_WAIT,
    )
    // act: a second of reconnect attempts (every 50-1000 ms)
    const error = await store.get('x').catch((e) => e)
    await sleep(1_000)
    redis.disconnect()
    // assess
    expect(error).toBeInstanceOf(StoreUnavailableError)
    expect(reports).toHaveLength(1)
  })
})

describe('store conditions Redis replies with', () => {
  it('answers 503 (StoreUnavailableError), never an unclassified 500, for a missing script, too few replicas, a busy or failing server', async () => {
    // prepare: replies as ioredis reports them (a promoted master without our scripts, min-replicas-to-write, ...)
    const replies = [
      'NOSCRIPT No matching script. Please use EVAL.',
      'NOREPLICAS Not enough good replicas to write.',
      'BUSY Redis is busy running a script.',
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      'CLUSTERDOWN Hash slot not served',
      'TRYAGAIN Multiple keys request during rehashing of slot',
    ].map((message) => Object.assign(new Error(message), { name: 'ReplyError' }))
    // act
    const answers = await Promise.all(replies.map((e) => guard(Promise.reject(e)).catch((c: unknown) => c)))
    // assess: each a 503; a script's own error stays what it is (a bug to see)
    for (const answer of answers) expect(answer).toBeInstanceOf(StoreUnavailableError)
    const bug = Object.assign(new Error('ERR user_script:1: attempt to call a nil value'), { name: 'ReplyError' })
    expect(await guard(Promise.reject(bug)).catch((c: unknown) => c)).toBe(bug)
  })
})
