// Which Redis failures are an outage (the caller answers 503 and retries) rather than a bug.
import { DelayQueueError, StoreUnavailableError } from '../errors'

/** Replies of a Redis Cluster slot on the move: the command did not run, and may run elsewhere or a moment later. */
const SLOT_MOVING = /^(TRYAGAIN|MOVED|ASK)\b/
/** Replies of a Redis that cannot take the command now: memory full, loading, failing over, or refusing us. */
const UNAVAILABLE = /^(OOM|LOADING|CLUSTERDOWN|MASTERDOWN|READONLY|WRONGPASS|NOAUTH|NOPERM)/

export function isSlotMoving(error: Error): boolean {
  return SLOT_MOVING.test(error.message)
}

/** Redis being away, refusing writes (OOM, cluster down) or refusing us (a password being rotated) is a 503, not a bug. */
export async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise
  } catch (e) {
    if (e instanceof DelayQueueError || e instanceof TypeError || e instanceof RangeError) throw e
    if (e instanceof Error && e.name === 'ReplyError' && !UNAVAILABLE.test(e.message) && !isSlotMoving(e)) throw e
    throw new StoreUnavailableError(e)
  }
}
