// The SendMessageBatch body the scanner builds itself (src/sqs/prebuilt-body.ts) is the one the SDK's serializer
// writes for the same entries, and what it carries reaches SQS byte for byte.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { JOB_ID_ATTRIBUTE } from '../../src/sqs/envelope'
import { sendMessageBatchBody, sendPrebuilt } from '../../src/sqs/prebuilt-body'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

/** Bodies with what JSON must escape, and text outside ASCII. */
const BODIES = [
  '{"payload":{"q":"a \\"quoted\\" word","path":"C:\\\\dir","line":"1\\n2","tab":"\\t"}}',
  '{"payload":{"text":"café, Ünïcødé, 日本語","escaped":"\\u0000\\u001f"}}',
  '{"payload":"</script><!-- & \' `"}',
]

describe('prebuilt SendMessageBatch bodies', () => {
  it("equal the SDK serializer's body for the same entries, standard and FIFO", async () => {
    // prepare: the SDK's own body, captured before it is sent
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: 'http://127.0.0.1:1', sendConcurrency: 1 })
    let sdkBody = ''
    const stop = new Error('captured')
    client.middlewareStack.add(
      () => async (args) => {
        const body = (args.request as { body: string | Uint8Array }).body
        sdkBody = typeof body === 'string' ? body : new TextDecoder().decode(body)
        throw stop
      },
      { step: 'build', name: 'captureBody' },
    )
    const url = 'http://127.0.0.1:1/000000000000/orders.fifo'
    // Control characters and a character beyond the BMP too (fauxqs refuses both; the serializers must still agree).
    const entries = [...BODIES, 'x\u0001\u001f\u2028y 😀'].map((body, i) => ({
      Id: `e${i}`,
      MessageBody: body,
      jobId: `job-"${i}"-é`,
      ...(i === 1 ? {} : { MessageGroupId: `g-${i}`, MessageDeduplicationId: `d${i}` }),
    }))
    const sdkEntries: SendMessageBatchRequestEntry[] = entries.map(({ jobId, ...e }) => ({
      ...e,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: jobId } },
    }))
    // act
    const error = await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: sdkEntries })).catch((e) => e)
    expect(error).toBe(stop)
    const ours = sendMessageBatchBody(url, entries, JOB_ID_ATTRIBUTE)
    // assess: the same JSON value (key order and escapes may differ; SQS reads the value)
    expect(JSON.parse(ours)).toEqual(JSON.parse(sdkBody))
    client.destroy()
  })

  it("are swapped in by the client's stack, which has no logger middleware (it filtered every output for nothing)", () => {
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: 'http://127.0.0.1:1', sendConcurrency: 1 })
    const names = client.middlewareStack.identify().join('\n')
    expect(names).toContain('sdqPrebuiltBody')
    expect(names).not.toContain('loggerMiddleware')
    client.destroy()
  })

  it('go through a middleware stack resolved once, and concurrent sends each get their own answer', async () => {
    // prepare: a client that has sent once (its handler is built); count how often a command builds it again
    const q = await createQueue(sqs, 'prebuilt-cached')
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 8 })
    const batch = (n: number) =>
      Array.from({ length: 10 }, (_, i) => ({
        Id: `e${i}`,
        MessageBody: `{"n":${n},"i":${i}}`,
        jobId: `job-${n}-${i}`,
      }))
    await sendPrebuilt(client, q.url, sendMessageBatchBody(q.url, batch(0), JOB_ID_ATTRIBUTE))
    const resolve = SendMessageBatchCommand.prototype.resolveMiddleware
    let resolved = 0
    SendMessageBatchCommand.prototype.resolveMiddleware = function (...args) {
      resolved++
      return resolve.apply(this, args)
    }
    try {
      // act: 20 sends at once over the shared handler
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          sendPrebuilt(client, q.url, sendMessageBatchBody(q.url, batch(n + 1), JOB_ID_ATTRIBUTE)),
        ),
      )
      // assess: no send built the stack again; every call got its ten entries accepted, and SQS holds all 210
      expect(resolved).toBe(0)
      for (const r of results) expect((r.Successful ?? []).map((s) => s.Id).sort()).toEqual(batch(0).map((e) => e.Id))
      const bodies = (await receiveAll(sqs, q.url)).map((m) => m.Body)
      expect(new Set(bodies).size).toBe(210)
    } finally {
      SendMessageBatchCommand.prototype.resolveMiddleware = resolve
      client.destroy()
    }
  })

  it('bounded by a time limit, still use the cached stack, and each hands its abort signal to the request handler', async () => {
    // prepare: count stack builds and watch what the SDK's HTTP handler is given (its class from a throwaway client:
    // the client under test wraps its handler's method when created, so the class is patched before that)
    const q = await createQueue(sqs, 'prebuilt-bounded')
    const probe = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    const handlerClass = Object.getPrototypeOf(probe.config.requestHandler) as {
      handle(this: unknown, request: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>
    }
    probe.destroy()
    const handle = handlerClass.handle
    const signals: (AbortSignal | undefined)[] = []
    handlerClass.handle = function (request, options) {
      signals.push(options?.abortSignal)
      return handle.call(this, request, options)
    }
    const resolve = SendMessageBatchCommand.prototype.resolveMiddleware
    let resolved = 0
    SendMessageBatchCommand.prototype.resolveMiddleware = function (...args) {
      resolved++
      return resolve.apply(this, args)
    }
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    try {
      // act: five sends, each bounded as the scanner bounds them
      for (let n = 0; n < 5; n++) {
        const entries = [{ Id: 'e0', MessageBody: `{"n":${n}}`, jobId: `job-${n}` }]
        const result = await sendPrebuilt(client, q.url, sendMessageBatchBody(q.url, entries, JOB_ID_ATTRIBUTE), 10_000)
        expect((result.Successful ?? []).map((s) => s.Id)).toEqual(['e0'])
      }
      // assess: the stack was built once (options on send() would rebuild it on every send and drop the cache), and
      // every request reached the handler with its own signal, not yet aborted
      expect(resolved).toBe(1)
      expect(signals).toHaveLength(5)
      expect(new Set(signals).size).toBe(5)
      for (const signal of signals) expect(signal?.aborted).toBe(false)
    } finally {
      SendMessageBatchCommand.prototype.resolveMiddleware = resolve
      handlerClass.handle = handle
      client.destroy()
    }
  })

  it('reach fauxqs with each body and job id attribute unchanged', async () => {
    // prepare
    const q = await createQueue(sqs, 'prebuilt')
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    const entries = BODIES.map((body, i) => ({ Id: `e${i}`, MessageBody: body, jobId: `job-${i}-é` }))
    // act
    const result = await sendPrebuilt(client, q.url, sendMessageBatchBody(q.url, entries, JOB_ID_ATTRIBUTE))
    // assess
    expect(result.Failed ?? []).toEqual([])
    expect((result.Successful ?? []).map((s) => s.Id).sort()).toEqual(['e0', 'e1', 'e2'])
    const got = (await receiveAll(sqs, q.url)).map((m) => [
      m.Body,
      m.MessageAttributes?.[JOB_ID_ATTRIBUTE]?.StringValue,
    ])
    expect(got.sort()).toEqual(entries.map((e) => [e.MessageBody, e.jobId]).sort())
    client.destroy()
  })
})
