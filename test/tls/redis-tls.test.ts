// TLS to Redis: a redis-server that speaks only TLS, with a certificate from a CA the test makes (openssl). The
// engine trusts that CA through REDIS_TLS_CA_FILE and runs the queue over rediss://; trusting another CA, it refuses
// the server with an error that names the setting to fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../local/ports'
import { startRedisCluster } from '../../local/redis-cluster'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { makeTestCertificates, tlsServerArgs, type TestCertificates } from '../../local/tls-certs'
import { ConfigError, StoreUnavailableError } from '../../src/errors'
import type { Log } from '../../src/logger'
import { createEngine } from '../../src/store/engine'
import { testConfig } from '../api/api-helpers'
import { job } from '../support/engine'

/** A logger that keeps the `error` field of each warning (the connection errors). */
const errorsInto = (lines: string[]): Log => ({
  info: () => undefined,
  error: () => undefined,
  warn: (_message, data) => void lines.push(String(data?.error)),
})

let certs: TestCertificates
let server: LocalRedis
let url: string
beforeAll(async () => {
  certs = await makeTestCertificates()
  const port = await freePort()
  server = await startRedis({ port, extraArgs: tlsServerArgs(certs, port) })
  url = `rediss://127.0.0.1:${port}`
})
afterAll(async () => {
  await server?.stop()
  certs?.remove()
})

describe('Redis over TLS (rediss://)', () => {
  it('runs enqueue, lookup and cancel with the CA from REDIS_TLS_CA_FILE', async () => {
    // prepare
    const engine = createEngine(testConfig({ REDIS_URL: url, REDIS_TLS_CA_FILE: certs.caFile }))
    try {
      // act
      await engine.store.enqueue(job({ id: 'tls-1', due: { delayMs: 60_000 } }))
      const view = await engine.store.get('tls-1')
      await engine.store.cancel('tls-1')
      // assess
      expect(view?.status).toBe('scheduled')
      expect(await engine.store.get('tls-1')).toBeNull()
    } finally {
      await engine.close()
    }
  })

  it('refuses a server whose certificate another CA signed, and says which setting to check', async () => {
    // prepare
    const logged: string[] = []
    const engine = createEngine(testConfig({ REDIS_URL: url, REDIS_TLS_CA_FILE: certs.otherCaFile }), {
      logger: errorsInto(logged),
    })
    try {
      // act
      const refused = await engine.store.enqueue(job({ id: 'tls-2' })).catch((e: unknown) => e)
      // assess
      expect(refused).toBeInstanceOf(StoreUnavailableError)
      expect(logged[0]).toMatch(
        /^TLS: the Redis server's certificate is not trusted \(SELF_SIGNED_CERT_IN_CHAIN: .*REDIS_TLS_CA_FILE must hold the CA/,
      )
    } finally {
      engine.redis.disconnect()
    }
  })

  it('fails at cold start when REDIS_TLS_CA_FILE cannot be read or holds no certificate', () => {
    expect(() => testConfig({ REDIS_URL: url, REDIS_TLS_CA_FILE: `${certs.dir}/missing.crt` })).toThrow(
      new ConfigError('REDIS_TLS_CA_FILE', `cannot be read (ENOENT): ${certs.dir}/missing.crt`),
    )
    expect(() => testConfig({ REDIS_URL: url, REDIS_TLS_CA_FILE: certs.keyFile })).toThrow(
      /REDIS_TLS_CA_FILE: holds no PEM certificate/,
    )
    expect(() => testConfig({ REDIS_TLS_CA_FILE: certs.caFile })).toThrow(
      /REDIS_TLS_CA_FILE: is set, but REDIS_URL is not rediss:\/\//,
    )
  })

  it('runs on a Redis Cluster that speaks only TLS (clients and cluster bus), and refuses it with a wrong CA', async () => {
    // prepare
    const cluster = await startRedisCluster({ masters: 3, tls: certs })
    const env = { REDIS_URL: 'rediss://127.0.0.1', REDIS_CLUSTER_NODES: cluster.addresses.join(','), SHARDS: '6' }
    const engine = createEngine(testConfig({ ...env, REDIS_TLS_CA_FILE: certs.caFile }))
    const logged: string[] = []
    const untrusting = createEngine(testConfig({ ...env, REDIS_TLS_CA_FILE: certs.otherCaFile }), {
      logger: errorsInto(logged),
    })
    try {
      // act
      const ids = Array.from({ length: 12 }, (_, i) => `tls-cluster-${i}`)
      await engine.store.enqueueMany(ids.map((id) => job({ id, due: { delayMs: 60_000 } })))
      const views = await Promise.all(ids.map((id) => engine.store.get(id)))
      const refused = await untrusting.store.get('tls-cluster-0').catch((e: unknown) => e)
      // assess: the jobs spread over the masters, all readable; the other CA gets nothing
      const shards = new Set(ids.map((id) => engine.keys.locate(id).shard.shard))
      expect(shards.size).toBeGreaterThan(2)
      expect(views.every((v) => v?.status === 'scheduled')).toBe(true)
      expect(refused).toBeInstanceOf(StoreUnavailableError)
      // ioredis's Cluster only reports "Connection is closed." here: the TLS reason is named on one node only.
      expect(logged.length).toBeGreaterThan(0)
    } finally {
      untrusting.redis.disconnect()
      await engine.close()
      await cluster.stop()
    }
  })
})
