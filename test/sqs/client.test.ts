// The keep-alive SQS client's request timeout: a send must end while its jobs are still leased, even when SQS
// accepts the connection and never answers.
import { ListQueuesCommand } from '@aws-sdk/client-sqs'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createSqsClient, sendTimeoutMs } from '../../src/sqs/client'

describe('createSqsClient', () => {
  it('gives up on an endpoint that never answers after the timeout derived from the lease', async () => {
    // prepare: a TCP server that takes connections and never writes a byte
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok))
    const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: endpoint, sendConcurrency: 1, leaseMs: 800 })
    try {
      // act
      const started = Date.now()
      const error = await client.send(new ListQueuesCommand({})).catch((e: Error) => e)
      const tookMs = Date.now() - started
      // assess: two attempts of sendTimeoutMs(800) = 200 ms each, not an endless wait
      expect(error).toBeInstanceOf(Error)
      expect(sendTimeoutMs(800)).toBe(200)
      expect(tookMs).toBeGreaterThanOrEqual(200)
      expect(tookMs).toBeLessThan(5_000)
    } finally {
      client.destroy()
      for (const s of sockets) s.destroy()
      await new Promise((ok) => silent.close(ok))
    }
  })
})
