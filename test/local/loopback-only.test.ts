// The local parts listen on 127.0.0.1 only: another host (a network namespace on this machine, test/support/
// foreign-host.ts) that reaches this machine's address is refused, while 127.0.0.1 is served. fauxqs on its own would
// listen on every address and takes any credentials (local/fauxqs-loopback.mjs).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { acceptsConnections } from '../../local/ports'
import { startRedis } from '../../local/redis-server'
import { startSqsInProcess, startSqsProcess } from '../../local/sqs-endpoint'
import { foreignHostOrReason, type ForeignHost } from '../support/foreign-host'

let other: ForeignHost | string = 'not made yet'

beforeAll(async () => {
  other = await foreignHostOrReason()
}, 30_000)

afterAll(async () => {
  if (typeof other !== 'string') await other.remove()
})

/** Skips the test when there is no other host (outside CI only: there it fails in beforeAll). */
function otherHost(ctx: { skip(note?: string): never }): ForeignHost {
  if (typeof other === 'string') ctx.skip(other)
  return other as ForeignHost
}

const portOf = (url: string) => Number(new URL(url).port)

describe('local parts listen on loopback only', () => {
  it('the SQS endpoint in a process of its own (dev stack, bench) refuses another host', async (ctx) => {
    // prepare
    const host = otherHost(ctx)
    const sqs = await startSqsProcess()
    try {
      // act
      const fromOther = await host.connectFrom(host.hostAddress, sqs.port)
      // assess
      expect(fromOther).toBe('refused')
      expect(await acceptsConnections(sqs.port)).toBe(true)
      expect((await sqs.createQueue('loopback-only')).queueUrl).toContain('loopback-only')
    } finally {
      await sqs.stop()
    }
  })

  it("the SQS endpoint in the test process (the suites), and the suite's own one, refuse another host", async (ctx) => {
    // prepare
    const host = otherHost(ctx)
    const sqs = await startSqsInProcess()
    try {
      // act
      const [mine, suites] = await Promise.all([
        host.connectFrom(host.hostAddress, sqs.port),
        host.connectFrom(host.hostAddress, portOf(inject('sqsEndpoint'))),
      ])
      // assess
      expect(mine).toBe('refused')
      expect(suites).toBe('refused')
      expect(await acceptsConnections(sqs.port)).toBe(true)
    } finally {
      await sqs.stop()
    }
  })

  it('redis-server (dev stack, suites) refuses another host', async (ctx) => {
    // prepare
    const host = otherHost(ctx)
    const redis = await startRedis()
    try {
      // act
      const fromOther = await host.connectFrom(host.hostAddress, portOf(redis.url))
      // assess
      expect(fromOther).toBe('refused')
      expect(await acceptsConnections(portOf(redis.url))).toBe(true)
    } finally {
      await redis.stop()
    }
  })
})
