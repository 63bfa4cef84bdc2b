// One keep-alive SQS client: many SendMessageBatch calls share its sockets (no TLS handshake per batch).
import { SQSClient } from '@aws-sdk/client-sqs'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { Agent as HttpAgent } from 'node:http'
import { Agent } from 'node:https'
import type { Config } from './config'

export function createSqsClient(config: Pick<Config, 'region' | 'sqsEndpoint' | 'sendConcurrency'>): SQSClient {
  const agentOptions = { keepAlive: true, maxSockets: Math.max(50, config.sendConcurrency * 2) }
  return new SQSClient({
    region: config.region,
    ...(config.sqsEndpoint
      ? { endpoint: config.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new Agent(agentOptions),
      connectionTimeout: 2_000,
      requestTimeout: 10_000,
    }),
    // The scanner retries on its own terms (release with backoff); one quick SDK retry covers blips.
    maxAttempts: 2,
    // The SDK hashes every message body to compare with SQS's MD5 of what it received. Over HTTPS, TLS already
    // guarantees the bytes in transit; the hash was a tenth of the scanner's own CPU in a burst.
    md5: false,
  })
}
