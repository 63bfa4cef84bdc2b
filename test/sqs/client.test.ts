// The keep-alive SQS client's request timeout: a send must end while its jobs are still leased, even when SQS
// accepts the connection and never answers.
import { ListQueuesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { createSqsClient, maxSendMs } from '../../src/sqs/sqs-client'

/** The host a send would go to: read once the request is built, stopped before it is signed or sent. */
async function hostOfSend(client: SQSClient, queueUrl: string): Promise<string> {
  const stop = new Error('stopped before sending')
  let host = ''
  client.middlewareStack.add(
    () => async (args) => {
      host = (args.request as { hostname: string }).hostname
      throw stop
    },
    { step: 'build', name: 'captureHost' },
  )
  const error = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [] })).catch((e) => e)
  if (error !== stop) throw error
  return host
}

describe('createSqsClient', () => {
  it("sends to the Region's dual-stack endpoint when AWS_USE_DUALSTACK_ENDPOINT=true, to the queue URL's host otherwise", async () => {
    // prepare: credentials from the environment, so the SDK's chain never looks further (no instance metadata call)
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local')
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local')
    const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders'
    const options = { region: 'eu-west-1', sendConcurrency: 1 }
    vi.stubEnv('AWS_USE_DUALSTACK_ENDPOINT', 'true')
    const dualStack = createSqsClient(options)
    vi.stubEnv('AWS_USE_DUALSTACK_ENDPOINT', 'false')
    const ipv4 = createSqsClient(options)
    try {
      // act + assess
      expect(await hostOfSend(dualStack, queueUrl)).toBe('sqs.eu-west-1.api.aws')
      expect(await hostOfSend(ipv4, queueUrl)).toBe('sqs.eu-west-1.amazonaws.com')
    } finally {
      dualStack.destroy()
      ipv4.destroy()
      vi.unstubAllEnvs()
    }
  })

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
      // assess: two attempts of maxSendMs(800) = 400 ms each, not an endless wait (the scanner bounds its own calls
      // sooner: src/scan/dispatch/send-pace.ts)
      expect(error).toBeInstanceOf(Error)
      expect(maxSendMs(800)).toBe(400)
      expect(tookMs).toBeGreaterThanOrEqual(400)
      expect(tookMs).toBeLessThan(5_000)
    } finally {
      client.destroy()
      for (const s of sockets) s.destroy()
      await new Promise((ok) => silent.close(ok))
    }
  })
})
