// A Redis password that would cross the network without TLS is warned about when the configuration is loaded (the
// functions' cold start), naming the setting and the hosts and never the password; TLS, loopback hosts (the local
// stack) and URLs without a password stay quiet. Pure configuration: nothing connects anywhere.
import { describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config'
import { defaultLog } from '../../src/logger'

const PASSWORD = 'hunter2-s3cret'
const QUEUES = 'orders=http://127.0.0.1:9/000000000000/orders'

/** Loads the configuration and returns the warnings it logged (the shared logger, as functions/*.ts use it). */
function warningsOf(env: Record<string, string>): unknown[][] {
  const warn = vi.spyOn(defaultLog(), 'warn').mockImplementation(() => undefined)
  try {
    loadConfig({ QUEUES, ...env })
    return [...warn.mock.calls]
  } finally {
    warn.mockRestore()
  }
}

describe('a Redis password without TLS', () => {
  it('is warned about for redis://:password@ a remote host, naming REDIS_URL and the host but not the password', () => {
    const warnings = warningsOf({ REDIS_URL: `redis://:${PASSWORD}@redis.internal.example:6379` })

    expect(warnings).toHaveLength(1)
    const [message, fields] = warnings[0] as [string, Record<string, unknown>]
    expect(message).toContain('REDIS_URL')
    expect(message).toContain('no TLS')
    expect(fields).toMatchObject({ setting: 'REDIS_URL', hosts: ['redis.internal.example'] })
    expect(JSON.stringify(warnings)).not.toContain(PASSWORD)
  })

  it('is warned about for an ACL user and password, and for cluster nodes that are remote', () => {
    const acl = warningsOf({ REDIS_URL: `redis://sdq-app:${PASSWORD}@10.0.3.7:6379` })
    const cluster = warningsOf({
      REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:6379`, // cluster mode: only the scheme and credentials count
      REDIS_CLUSTER_NODES: '10.0.3.7:6379,10.0.4.7:6379',
    })

    expect(acl).toHaveLength(1)
    expect(cluster).toHaveLength(1)
    expect((cluster[0]![1] as Record<string, unknown>).hosts).toEqual(['10.0.3.7', '10.0.4.7'])
    expect(JSON.stringify([acl, cluster])).not.toContain(PASSWORD)
  })

  it.each([
    ['TLS (rediss://)', { REDIS_URL: `rediss://:${PASSWORD}@redis.internal.example:6379` }],
    ['no password', { REDIS_URL: 'redis://redis.internal.example:6379' }],
    ['a user and no password', { REDIS_URL: 'redis://sdq-app@redis.internal.example:6379' }],
    ['127.0.0.1 (the local stack)', { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:6379` }],
    ['localhost', { REDIS_URL: `redis://:${PASSWORD}@localhost:6379` }],
    ['::1', { REDIS_URL: `redis://:${PASSWORD}@[::1]:6379` }],
    ['loopback cluster nodes', { REDIS_URL: `redis://:${PASSWORD}@x:1`, REDIS_CLUSTER_NODES: '127.0.0.1:7001' }],
  ])('is not warned about with %s', (_, env) => {
    expect(warningsOf(env)).toEqual([])
  })
})
