// One SQS client per (region, endpoint) for the life of the Lambda container: created on first use, kept alive
// across invocations so ChangeMessageVisibility does not pay a TLS handshake per batch.
import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import { SQSClient } from '@aws-sdk/client-sqs'
import { NodeHttpHandler } from '@smithy/node-http-handler'

const clients = new Map<string, SQSClient>()

/** `endpoint` is for local runs only (fauxqs): its queue URLs name hosts that do not resolve. */
export function sqsClientFor(region: string, endpoint?: string): SQSClient {
  const key = `${region} ${endpoint ?? ''}`
  let client = clients.get(key)
  if (!client) {
    client = new SQSClient({
      region,
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      requestHandler: new NodeHttpHandler({
        httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 16 }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
        connectionTimeout: 2_000,
        requestTimeout: 5_000,
      }),
    })
    clients.set(key, client)
  }
  return client
}
