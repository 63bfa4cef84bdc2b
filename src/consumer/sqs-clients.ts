// One SQS client per (region, endpoint) for the life of the Lambda container: created on first use, kept alive
// across invocations so ChangeMessageVisibility does not pay a TLS handshake per batch. Built by the same factory as
// the scanner's (src/sqs/sqs-client.ts).
import type { SQSClient } from '@aws-sdk/client-sqs'
import { createSqsClient } from '../sqs/sqs-client'

const clients = new Map<string, SQSClient>()

/** `endpoint` is for local runs only (fauxqs): its queue URLs name hosts that do not resolve. */
export function sqsClientFor(region: string, endpoint?: string): SQSClient {
  const key = `${region} ${endpoint ?? ''}`
  let client = clients.get(key)
  if (!client) {
    // A 20 s budget gives 5 s per request, the most a visibility change should take inside a consumer's run.
    client = createSqsClient({ region, sqsEndpoint: endpoint, sendConcurrency: 8, leaseMs: 20_000 })
    clients.set(key, client)
  }
  return client
}
