// The local parts listen on 127.0.0.1 only: another host (a network namespace on this machine, test/support/
// foreign-host.ts) that reaches this machine's address is refused, while 127.0.0.1 is served. fauxqs on its own would
// listen on every address and takes any credentials (local/fauxqs-loopback.mjs).
import { describe, expect, inject, it } from 'vitest'
import { acceptsConnections } from '../../local/ports'
import { startRedis } from '../../local/redis-server'
import { startSqsInProcess, startSqsProcess } from '../../local/sqs-endpoint'
import { foreignHostForFile, type ForeignHost } from '../support/foreign-host'

const other = foreignHostForFile()

const portOf = (url: string) => Number(new URL(url).port)

/** How a port answers another host, and 127.0.0.1. */
async function reach(host: ForeignHost, port: number) {
  return { fromOther: await host.connectFrom(host.hostAddress, port), fromLoopback: await acceptsConnections(port) }
}
const LOOPBACK_ONLY = { fromOther: 'refused', fromLoopback: true }

/** Starts a local part, runs `check` on it, and stops it, also when the check fails. */
async function whileRunning<P extends { stop(): Promise<void> }>(
  start: () => Promise<P>,
  check: (part: P) => Promise<void>,
) {
  const part = await start()
  try {
    await check(part)
  } finally {
    await part.stop()
  }
}

describe('local parts listen on loopback only', () => {
  it('the SQS endpoint in a process of its own (dev stack, bench) refuses another host', async (ctx) => {
    // prepare: the other host and the part; act / assess: how the part's port answers each
    const host = other.host(ctx)
    await whileRunning(startSqsProcess, async (sqs) => {
      expect(await reach(host, sqs.port)).toEqual(LOOPBACK_ONLY)
      expect((await sqs.createQueue('loopback-only')).queueUrl).toContain('loopback-only')
    })
  })

  it("the SQS endpoint in the test process (the suites), and the suite's own one, refuse another host", async (ctx) => {
    // prepare: the other host and the part; act / assess: how the part's port answers each
    const host = other.host(ctx)
    await whileRunning(startSqsInProcess, async (sqs) => {
      const [mine, suites] = await Promise.all([reach(host, sqs.port), reach(host, portOf(inject('sqsEndpoint')))])
      expect(mine).toEqual(LOOPBACK_ONLY)
      expect(suites).toEqual(LOOPBACK_ONLY)
    })
  })

  it('redis-server (dev stack, suites) refuses another host', async (ctx) => {
    // prepare: the other host and the part; act / assess: how the part's port answers each
    const host = other.host(ctx)
    await whileRunning(startRedis, async (redis) => expect(await reach(host, redis.port)).toEqual(LOOPBACK_ONLY))
  })
})
