// SendMessageBatch answers read with one JSON.parse. The SDK's protocol walks the answer through its output schema
// (a struct per entry, member by member): with ten entries per request that was ~5% of a scan worker's CPU in a burst
// (bench/profile.ts drain, perf). The answer's JSON is the output as it is (AWS JSON 1.0: members by name, strings and
// booleans only), so a successful answer is parsed natively; an error answer (status >= 300) and every other
// operation go through the SDK's protocol unchanged, so its errors, their types and the retries they lead to stay the
// SDK's. The body is read from Node's response stream by its own events: the SDK's stream collector pipes every
// answer into a new Writable, and a capped scan worker spent 54 µs a job with it against 45 without (an A/B of
// bench:burst-scale). Any other body goes to the client's own stream collector. $metadata is the protocol's.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { Readable } from 'node:stream'

interface HttpAnswer {
  statusCode: number
  headers: Record<string, string>
  body: unknown
}

interface Protocol {
  deserializeResponse(operation: { name?: string }, context: object, response: HttpAnswer): Promise<object>
  deserializeMetadata(response: HttpAnswer): object
}

type Collector = (body: unknown) => Promise<Uint8Array>

/** Installs the native parse on a client's protocol (one instance per client). */
export function parsedBatchAnswers(sqs: SQSClient): void {
  const protocol = (sqs.config as unknown as { protocol?: Protocol }).protocol
  if (!protocol || typeof protocol.deserializeResponse !== 'function') return
  const sdkDeserialize = protocol.deserializeResponse.bind(protocol)
  protocol.deserializeResponse = async (operation, context, response) => {
    const collect = (context as { streamCollector?: Collector }).streamCollector
    if (operation?.name !== 'SendMessageBatch' || response.statusCode >= 300 || !collect) {
      return sdkDeserialize(operation, context, response)
    }
    const body = response.body
    const bytes = body instanceof Uint8Array ? body : await (body instanceof Readable ? readAll(body) : collect(body))
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
    const output = text.length ? (JSON.parse(text) as Record<string, unknown>) : {}
    output.$metadata = protocol.deserializeMetadata(response)
    return output
  }
}

/**
 * Every byte of a Node stream, read by its events (so it also flows to its end: the keep-alive socket is freed). A
 * stream that closes before its end (destroyed without an error: its socket went away) rejects: without that, the
 * send would wait forever. A stream that stalls is ended by the send's own bound (sendPrebuilt's signal destroys it).
 */
export function readAll(stream: Readable): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed && !stream.readableEnded) return reject(new AnswerCutError())
    const chunks: Buffer[] = []
    let settled = false
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.once('end', () => {
      settled = true
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
    stream.once('error', (e) => {
      settled = true
      reject(e)
    })
    // After 'end' (or 'error') this comes too: every answer's. An error is only built when the stream was cut: one
    // built (its stack trace taken) per answer and thrown away was ~1 µs a job of a burst's scanner CPU.
    stream.once('close', () => {
      if (!settled) reject(new AnswerCutError())
    })
  })
}

/** The answer's body ended before all of it arrived: SQS may have carried the call out (its answer is lost). */
export class AnswerCutError extends Error {
  constructor() {
    super('the SendMessageBatch answer closed before its end')
    this.name = 'AnswerCutError'
  }
}
