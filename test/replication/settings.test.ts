// The failover and replication settings are checked at cold start, each refusal naming the setting and its rule.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config'

const base = { QUEUES: 'orders=http://127.0.0.1:9/000000000000/orders' }

describe('Sentinel and WAIT settings', () => {
  it('connects through sentinels without REDIS_URL, with the master name and WAIT settings given', () => {
    const config = loadConfig({
      ...base,
      REDIS_SENTINELS: '10.0.0.1:26379, 10.0.0.2:26379,10.0.0.3:26379',
      REDIS_SENTINEL_MASTER: 'queue-primary',
      REDIS_WAIT_REPLICAS: '1',
      REDIS_WAIT_TIMEOUT_MS: '250',
    })
    expect(config.redis).toMatchObject({
      sentinels: ['10.0.0.1:26379', '10.0.0.2:26379', '10.0.0.3:26379'],
      sentinelMaster: 'queue-primary',
      waitReplicas: 1,
      waitTimeoutMs: 250,
    })
  })

  it('waits for a replica when the primary has one unless told otherwise (auto), and takes 0 as an opt-out', () => {
    const config = loadConfig({ ...base, REDIS_URL: 'redis://127.0.0.1:6379' })
    expect(config.redis).toMatchObject({ waitReplicas: 'auto', waitTimeoutMs: 1_000 })
    expect(loadConfig({ ...base, REDIS_URL: 'redis://h:1', REDIS_WAIT_REPLICAS: 'auto' }).redis.waitReplicas).toBe(
      'auto',
    )
    expect(loadConfig({ ...base, REDIS_URL: 'redis://h:1', REDIS_WAIT_REPLICAS: '0' }).redis.waitReplicas).toBe(0)
    expect(config.redis.sentinels).toBeUndefined()
    expect(config.memoryWarnPercent).toBe(80)
  })

  // Each case: the settings added to a valid environment (REDIS_URL and QUEUES), the setting the refusal names, its rule.
  it.each([
    [{ REDIS_SENTINELS: '10.0.0.1' }, 'REDIS_SENTINELS', '"10.0.0.1" is not host:port'],
    [
      { REDIS_SENTINELS: 'a:1', REDIS_CLUSTER_NODES: 'b:2' },
      'REDIS_SENTINELS',
      'cannot be combined with REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'my master' },
      'REDIS_SENTINEL_MASTER',
      'must be 1-64 characters',
    ],
    [{ REDIS_WAIT_REPLICAS: '-1' }, 'REDIS_WAIT_REPLICAS', 'must be "auto" or a whole number, got "-1"'],
    [{ REDIS_WAIT_REPLICAS: 'one' }, 'REDIS_WAIT_REPLICAS', 'must be "auto" or a whole number, got "one"'],
    [{ REDIS_WAIT_REPLICAS: '17' }, 'REDIS_WAIT_REPLICAS', 'must be between 0 and 16, got 17'],
    [{ REDIS_WAIT_TIMEOUT_MS: '0' }, 'REDIS_WAIT_TIMEOUT_MS', 'must be between 1 and 60000, got 0'],
    [{ REDIS_MEMORY_WARN_PERCENT: '101' }, 'REDIS_MEMORY_WARN_PERCENT', 'must be between 1 and 100, got 101'],
    [{ REDIS_URL: '' }, 'REDIS_URL', 'is required (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS)'],
  ])('refuses %o, naming %s', (env, setting, rule) => {
    expect(() => loadConfig({ ...base, REDIS_URL: 'redis://h:1', ...env })).toThrow(
      `invalid setting ${setting}: ${rule}`,
    )
  })
})
