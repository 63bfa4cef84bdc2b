// Which Redis failures are an outage (the caller answers 503 and retries) rather than a bug.
import { DelayQueueError, StoreFullError, StoreUnavailableError } from '../errors'

/** Redis being away, refusing writes (OOM, cluster down) or refusing us (a password being rotated) is a 503, not a bug. */
export async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise
  } catch (e) {
    if (e instanceof DelayQueueError || e instanceof TypeError || e instanceof RangeError) throw e
    const message = e instanceof Error ? e.message : String(e)
    if (e instanceof Error && e.name === 'ReplyError' && message.startsWith('OOM')) throw new StoreFullError(e)
    if (e instanceof Error && e.name === 'ReplyError' && !/^(LOADING|CLUSTERDOWN|TRYAGAIN|MOVED|ASK|MASTERDOWN|READONLY|WRONGPASS|NOAUTH|NOPERM)/.test(message)) {
      throw e
    }
    throw new StoreUnavailableError(e)
  }
}


