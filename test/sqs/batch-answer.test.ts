// SendMessageBatch answers parsed natively (src/sqs/batch-answer.ts) give what the SDK's own protocol gives, and an
// error answer is still the SDK's typed error.
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { Readable } from 'node:stream'
import { AnswerCutError, readAll } from '../../src/sqs/batch-answer'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { JOB_ID_ATTRIBUTE } from '../../src/sqs/envelope'
import { sendMessageBatchBody, sendPrebuilt } from '../../src/sqs/prebuilt-body'
import { createQueue, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

/** Two accepted entries and one fauxqs refuses (a control character SQS does not allow in a body). */
const ENTRIES = [
  { Id: 'e0', MessageBody: '{"n":0}', jobId: 'job-0' },
  { Id: 'e1', MessageBody: 'bad \u0001 body', jobId: 'job-1' },
  { Id: 'e2', MessageBody: '{"n":2,"text":"café"}', jobId: 'job-2' },
]

/** The answer with what differs between two sends left out (message ids, request ids). */
function shape(answer: Record<string, unknown>) {
  const { $metadata, Successful, Failed } = answer as {
    $metadata: { httpStatusCode?: number; requestId?: string }
    Successful?: Record<string, unknown>[]
    Failed?: Record<string, unknown>[]
  }
  return {
    status: $metadata.httpStatusCode,
    hasRequestId: $metadata.requestId !== undefined,
    keys: Object.keys(answer).sort(),
    successful: (Successful ?? []).map(({ MessageId, ...rest }) => ({ ...rest, MessageId: typeof MessageId })),
    failed: Failed ?? [],
  }
}

describe('SendMessageBatch answers', () => {
  it("read natively equal the SDK protocol's output for the same entries, accepted and refused", async () => {
    // prepare: the SDK's client as it comes, and the scanner's
    const q = await createQueue(sqs, 'batch-answer')
    const ours = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    const plain = new SQSClient({
      region: 'us-east-1',
      endpoint: inject('sqsEndpoint'),
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    })
    // The SDK protocol's schema reader: the native path must not call it.
    const reader = (ours.config as unknown as { protocol: { deserializer: { read: (...a: unknown[]) => unknown } } })
      .protocol.deserializer
    const read = reader.read.bind(reader)
    let schemaReads = 0
    reader.read = (...a: unknown[]) => {
      schemaReads++
      return read(...a)
    }
    // act
    const native = await sendPrebuilt(ours, q.url, sendMessageBatchBody(q.url, ENTRIES, JOB_ID_ATTRIBUTE))
    const sdk = await plain.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: ENTRIES.map(({ jobId, ...e }) => ({
          ...e,
          MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: jobId } },
        })),
      }),
    )
    // assess: the same members, entries and refusal, each with its message id and request id; no schema walk
    expect(schemaReads).toBe(0)
    expect(native.Failed?.map((f) => f.Id)).toEqual(['e1'])
    expect(shape(native as unknown as Record<string, unknown>)).toEqual(
      shape(sdk as unknown as Record<string, unknown>),
    )
    ours.destroy()
    plain.destroy()
  })

  it("of an error are the SDK's typed error, as before", async () => {
    // prepare: a queue that does not exist
    const ours = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    const url = `${inject('sqsEndpoint')}/000000000000/no-such-queue`
    // act
    const error = await sendPrebuilt(ours, url, sendMessageBatchBody(url, ENTRIES.slice(0, 1), JOB_ID_ATTRIBUTE)).catch(
      (e) => e,
    )
    // assess
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toMatch(/QueueDoesNotExist|NonExistentQueue/)
    expect(error.$metadata?.httpStatusCode).toBe(400)
    expect(error.$fault).toBe('client')
    ours.destroy()
  })

  it('read from a stream that closes before its end reject instead of waiting forever', async () => {
    // prepare: half an answer arrived, then the stream is destroyed without an error (its socket went away)
    const body = new Readable({ read() {} })
    body.push('{"Successful":[')
    // act
    const read = readAll(body)
    setImmediate(() => body.destroy())
    // assess
    await expect(read).rejects.toBeInstanceOf(AnswerCutError)
  })

  it('read from a stream that was destroyed already reject at once', async () => {
    const body = new Readable({ read() {} })
    body.destroy()
    await expect(readAll(body)).rejects.toBeInstanceOf(AnswerCutError)
  })

  it('read from a stream that ends and then closes build no AnswerCutError (every answer closes after its end)', async () => {
    // prepare: count the errors built (each sets its name), as every answer of a burst's sends would build one
    let built = 0
    Object.defineProperty(AnswerCutError.prototype, 'name', {
      configurable: true,
      set() {
        built++
      },
      get: () => 'AnswerCutError',
    })
    try {
      const body = Readable.from([Buffer.from('{"Successful":[]}')])
      const closed = new Promise((r) => body.once('close', r))
      // act
      const read = await readAll(body)
      await closed
      // assess: resolved with the bytes, and no error built (and thrown away) for the close that followed the end
      expect(Buffer.from(read).toString('utf8')).toBe('{"Successful":[]}')
      expect(built).toBe(0)
    } finally {
      delete (AnswerCutError.prototype as { name?: string }).name
    }
  })

  it('read from a stream that ends resolve with every byte', async () => {
    const body = Readable.from([Buffer.from('{"Successful":'), Buffer.from('[]}')])
    expect(Buffer.from(await readAll(body)).toString('utf8')).toBe('{"Successful":[]}')
  })
})
