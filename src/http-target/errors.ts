// Errors of HTTP deliveries. They extend the queue's common base (src/errors.ts).
import { DelayQueueError } from '../errors'

/** The SSRF guard refused the destination: every address the host has is in a blocked range. Never retried. */
export class AddressRefusedError extends DelayQueueError {
  readonly code = 'AddressRefused'
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${host}: ${reason}`)
  }
}

/** A delivery got no complete answer within its time (connect or total). Retried. */
export class DeliveryTimeoutError extends DelayQueueError {
  readonly code = 'DeliveryTimeout'
  constructor(
    readonly phase: 'connect' | 'total',
    readonly timeoutMs: number,
  ) {
    super(`no ${phase === 'connect' ? 'connection' : 'complete answer'} within ${Math.round(timeoutMs)} ms`)
  }
}

/** A job's HTTP request cannot be made (no URL from the job nor its queue, a bad header): never retried. */
export class InvalidHttpJobError extends DelayQueueError {
  readonly code = 'InvalidHttpJob'
}

/** No webhook secret could be loaded (SSM / Secrets Manager unreachable): retried, nothing is sent unsigned. */
export class SecretUnavailableError extends DelayQueueError {
  readonly code = 'SecretUnavailable'
}
