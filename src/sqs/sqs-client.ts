// One keep-alive SQS client: many SendMessageBatch calls share its sockets (no TLS handshake per batch).
import { SQSClient } from '@aws-sdk/client-sqs'
import { Agent as HttpAgent } from 'node:http'
import { Agent } from 'node:https'
import type { Config } from '../config'
import { watchAttempts } from './arrival'
import { parsedBatchAnswers } from './batch-answer'
import { oneSigner } from './one-signer'
import { prebuiltBodies } from './prebuilt-body'
import { Sha256 } from './sha256'

/** Attempts the SDK makes per call: the scanner retries on its own terms (release with backoff). */
export const SQS_SDK_ATTEMPTS = 2

/**
 * How long one SendMessageBatch may take while SQS answers quickly, derived from the lease: a quarter of it, at most
 * 10 s. The scanner raises it while answers are slow (src/scan/dispatch/send-pace.ts), up to maxSendMs.
 */
export function sendTimeoutMs(leaseMs: number): number {
  return Math.max(100, Math.min(10_000, Math.floor(leaseMs / (2 * SQS_SDK_ATTEMPTS))))
}

/**
 * The longest one SendMessageBatch call may take, every SDK attempt included: a send must end while its jobs are
 * still leased, or another scanner claims them again and they go out twice. Half the lease, at most 20 s.
 */
export function maxSendMs(leaseMs: number): number {
  return SQS_SDK_ATTEMPTS * sendTimeoutMs(leaseMs)
}

export function createSqsClient(
  config: Pick<Config, 'region' | 'sqsEndpoint' | 'sendConcurrency'> & { leaseMs?: number },
): SQSClient {
  // IPv6 egress (docs/deploy.md): functions in dual-stack subnets reach SQS through a free egress-only internet
  // gateway instead of a paid interface endpoint or NAT. AWS_USE_DUALSTACK_ENDPOINT is the SDK's own switch.
  const dualStack = !config.sqsEndpoint && process.env.AWS_USE_DUALSTACK_ENDPOINT === 'true'
  const agentOptions = { keepAlive: true, maxSockets: Math.max(50, config.sendConcurrency * 2) }
  // The scanner bounds each call itself, by a timeout that follows SQS's answers (src/scan/dispatch/send-pace.ts):
  // the handler's own timeout only stops a request that outlives the longest call. A timeout of the handler would be
  // retried by the SDK, and a request that timed out may have been carried out: each retry of it, one more copy.
  const timeout = maxSendMs(config.leaseMs ?? 30_000)
  const client = new SQSClient({
    region: config.region,
    ...(config.sqsEndpoint
      ? { endpoint: config.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    // A queue URL's host (sqs.<region>.amazonaws.com) has IPv4 addresses only: with dual-stack on, the SDK must send
    // to the Region's dual-stack endpoint instead (the queue URL still names the queue).
    ...(dualStack ? { useDualstackEndpoint: true, useQueueUrlAsEndpoint: false } : {}),
    // The SDK's own NodeHttpHandler, built from these options: importing it here would put a second copy of
    // @smithy/core (~280 kB) into every bundle that keeps the runtime's @aws-sdk/* external.
    requestHandler: {
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new Agent(agentOptions),
      connectionTimeout: Math.min(2_000, timeout),
      requestTimeout: timeout,
      // Without it, a request past requestTimeout only logs a warning and keeps waiting (its lease would run out).
      throwOnRequestTimeout: true,
    },
    // One quick SDK retry covers blips; the scanner retries on its own terms (release with backoff).
    maxAttempts: SQS_SDK_ATTEMPTS,
    // The SDK hashes every message body to compare with SQS's MD5 of what it received. Over HTTPS, TLS already
    // guarantees the bytes in transit; the hash was a tenth of the scanner's own CPU in a burst.
    md5: false,
    // SigV4's hashes and HMACs with one native call each and the HMAC keys imported once (src/sqs/sha256.ts).
    sha256: Sha256,
    // The SDK's own option: the middleware stack is resolved into a handler once per command class, not on every
    // send (sorting and composing ~30 middleware, a new context object, per SendMessageBatch: ~3% of a burst's CPU).
    // Middleware must be added before the first send (prebuiltBodies below; tests add theirs right after creation).
    cacheMiddleware: true,
  })
  prebuiltBodies(client)
  watchAttempts(client)
  parsedBatchAnswers(client)
  oneSigner(client)
  // The SDK's logger middleware filters every input and output for its log line even with no logger set (its
  // arguments are built before the no-op call): ~1.5% of the scanner's CPU in a burst. This client has no logger.
  client.middlewareStack.remove('loggerMiddleware')
  return client
}
