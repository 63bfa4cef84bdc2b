// SendMessageBatch answers read with one JSON.parse. The SDK's protocol walks the answer through its output schema
// (a struct per entry, member by member): with ten entries per request that was ~5% of a scan worker's CPU in a burst
// (bench/profile.ts drain, perf). The answer's JSON is the output as it is (AWS JSON 1.0: members by name, strings and
// booleans only), so a successful answer is parsed natively; an error answer (status >= 300) and every other
// operation go through the SDK's protocol unchanged, so its errors, their types and the retries they lead to stay the
// SDK's. The body is read with the client's own stream collector, and $metadata is the protocol's.
import type { SQSClient } from '@aws-sdk/client-sqs'

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
    const bytes = response.body instanceof Uint8Array ? response.body : await collect(response.body)
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
    const output = text.length ? (JSON.parse(text) as Record<string, unknown>) : {}
    output.$metadata = protocol.deserializeMetadata(response)
    return output
  }
}
