// Whether SQS may have taken a SendMessageBatch that failed, judged on every attempt the SDK made (src/sqs/arrival.ts):
// a send whose attempts all met a refused connection (an SQS outage) cannot have arrived, and its jobs stay
// cancellable; one whose first attempt reached the endpoint and lost its answer may have, whatever its retry met.
// Real sockets on loopback: a TCP server that behaves as each case needs, then goes away.
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { mayHaveArrived } from '../../src/sqs/arrival'
import { sendMessageBatchBody, sendPrebuilt } from '../../src/sqs/prebuilt-body'
import { createSqsClient } from '../../src/sqs/sqs-client'

const QUEUE = 'http://127.0.0.1/000000000000/orders'
const body = sendMessageBatchBody(QUEUE, [{ Id: 'e0', MessageBody: '{}', jobId: 'a' }], 'jobId')

/** A loopback server; `onRequest` sees each connection once its first bytes arrived. */
async function server(onRequest: (socket: Socket, server: Server) => void) {
  const sockets = new Set<Socket>()
  const s = createServer((socket) => {
    sockets.add(socket)
    socket.once('data', () => onRequest(socket, s))
  })
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok))
  const port = (s.address() as AddressInfo).port
  const close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((ok) => s.close(ok))
  }
  return { endpoint: `http://127.0.0.1:${port}`, close }
}

/** A send through a scanner's client, with a bound; the error it ended with. */
async function failedSend(endpoint: string, maxMs = 5_000): Promise<unknown> {
  const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: endpoint, sendConcurrency: 1, leaseMs: 20_000 })
  try {
    return await sendPrebuilt(client, QUEUE, body, maxMs).then(
      () => new Error('the send succeeded'),
      (e: unknown) => e,
    )
  } finally {
    client.destroy()
  }
}

describe('whether a failed send may have reached SQS', () => {
  it('is no when every attempt met a refused connection (an outage), though the SDK tried twice', async () => {
    // prepare: a port that nobody listens on any more
    const gone = await server(() => undefined)
    await gone.close()
    // act
    const error = await failedSend(gone.endpoint)
    // assess: the SDK retried (the rule for unwatched calls would say "maybe"), and the watch knows better
    expect((error as { code?: string }).code).toBe('ECONNREFUSED')
    expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(2)
    expect(mayHaveArrived(error)).toBe(false)
  })

  it('is yes when the first attempt reached the endpoint and lost its answer, and the retry met a refused connection', async () => {
    // prepare: the endpoint reads the request, then resets the connection and stops listening
    const flaky = await server((socket, s) => {
      s.close()
      socket.resetAndDestroy()
    })
    // act
    const error = await failedSend(flaky.endpoint)
    await flaky.close().catch(() => undefined)
    // assess
    expect((error as { code?: string }).code).toBe('ECONNREFUSED')
    expect(mayHaveArrived(error)).toBe(true)
  })

  it('is yes when the bound passed while an attempt was on its way (the answer never came)', async () => {
    // prepare: the endpoint reads the request and never answers
    const silent = await server(() => undefined)
    // act
    const error = await failedSend(silent.endpoint, 300)
    await silent.close()
    // assess
    expect((error as Error).name).toBe('SendTimeoutError')
    expect(mayHaveArrived(error)).toBe(true)
  })
})
