// Which Redis failures are an outage (the caller answers 503 and retries) rather than a bug.
import { DelayQueueError, StoreFullError, StoreUnavailableError } from '../../errors'

/** Replies of a Redis Cluster slot on the move: the command did not run, and may run elsewhere or a moment later. */
const SLOT_MOVING = /^(TRYAGAIN|MOVED|ASK)\b/
/**
 * Replies of a Redis that cannot take the command now: loading, failing over, without its replicas (min-replicas),
 * busy with a script, refusing writes after a failed save, missing our scripts (a newly promoted master), or
 * refusing us. A store condition, never a bug of ours: a 503. (OOM: StoreFullError.)
 */
const UNAVAILABLE =
  /^(LOADING|CLUSTERDOWN|MASTERDOWN|READONLY|WRONGPASS|NOAUTH|NOPERM|NOSCRIPT|NOREPLICAS|BUSY|MISCONF|UNBLOCKED|ERR max number of clients)\b/

export function isSlotMoving(error: Error): boolean {
  return SLOT_MOVING.test(error.message)
}

/**
 * Redis being away, refusing writes (cluster down, failover) or refusing us (a password being rotated) is a 503, not a
 * bug; Redis full (OOM) is a StoreFullError (507).
 */
export async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise
  } catch (e) {
    throw storeError(e)
  }
}

/** What guard throws for a failure `e`: `e` itself (a bug, or a queue error already), or the store's condition. */
export function storeError(e: unknown): unknown {
  if (e instanceof DelayQueueError || e instanceof TypeError || e instanceof RangeError) return e
  if (e instanceof Error && e.name === 'ReplyError' && e.message.startsWith('OOM')) return new StoreFullError(e)
  if (e instanceof Error && e.name === 'ReplyError' && !UNAVAILABLE.test(e.message) && !isSlotMoving(e)) return e
  return new StoreUnavailableError(e)
}

const UNTRUSTED_CERTIFICATE =
  /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/

/**
 * A connection error as an operator should read it. Node's TLS errors name an OpenSSL condition
 * ("self-signed certificate in certificate chain"); say which setting is wrong instead.
 */
export function describeConnectionError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e)
  // ioredis's Cluster reports "Failed to refresh slots cache." and keeps the reason of the last node it tried.
  const lastNodeError = (e as { lastNodeError?: unknown })?.lastNodeError
  if (lastNodeError) return `${message} ${describeConnectionError(lastNodeError)}`
  const code = (e as { code?: unknown })?.code
  if (typeof code === 'string' && UNTRUSTED_CERTIFICATE.test(code)) {
    return (
      `TLS: the Redis server's certificate is not trusted (${code}: ${message}); REDIS_TLS_CA_FILE must hold the CA ` +
      'that signed it (without it, the system CAs), and REDIS_URL must name a host the certificate is for'
    )
  }
  return message
}
