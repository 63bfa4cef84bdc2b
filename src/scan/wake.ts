// A shard's sleep between claims, and the wake signals that cut it short: an enqueue that makes a job the shard's
// earliest publishes "dueMs:bucket" on the shard's channel (lua/enqueue.lua), so precision does not depend on the
// poll interval.
import type { Log } from '../logger'
import type { ShardKeys } from '../store/keys'
import type { RedisClient } from '../store/scripts'
import type { RedisClock } from './clock'
import type { ClaimResult } from './leases'

export interface ShardState {
  keys: ShardKeys
  hints: string[]
  /** Resolves the current sleep early (wake signal, or the run stops). */
  wake?: () => void
  sleepingUntil: number
  /** The current sleep ends at a due time (not the poll, nor the deadline): a claim will find work then. */
  sleepsForDue?: boolean
}

/** A run's last claim comes this long before its deadline, for a job whose window would outlast the run. */
const LAST_CLAIM_MS = 50

/**
 * When a shard that has nothing more to claim now wakes (local ms): at its earliest due time + the dispatch window,
 * after the poll interval (+ the window, or a poll would cut the window short), or at the deadline. A job due before
 * the deadline leaves in this run, its window cut short if need be: the next run may start seconds later. Notes on
 * the shard whether the sleep ends at a due time.
 */
export function planSleep(
  shard: ShardState,
  claim: Pick<ClaimResult, 'nextDueMs' | 'nextInflightMs'>,
  clock: RedisClock,
  o: { pollIntervalMs: number; windowMs: number; untilMs: number },
): number {
  const local = (redisMs: number | null) => (redisMs === null ? Infinity : clock.toLocal(redisMs))
  // A lease expiry or a retry is not held for the window; when one comes first, the scheduled jobs (due no sooner)
  // are planned again after it.
  const inflight = local(claim.nextInflightMs)
  const scheduled = inflight <= local(claim.nextDueMs) ? Infinity : local(claim.nextDueMs)
  const lastClaimAt = o.untilMs - LAST_CLAIM_MS
  const due = scheduled + o.windowMs
  const target = Math.min(scheduled < lastClaimAt ? Math.min(due, lastClaimAt) : due, inflight)
  const wakeAt = Math.min(target, Date.now() + o.pollIntervalMs + o.windowMs, o.untilMs)
  shard.sleepsForDue = wakeAt === target
  return wakeAt
}

/** Sleeps until `untilLocalMs` unless woken first; reports how long it slept. */
export function sleepShard(shard: ShardState, untilLocalMs: number, onSlept?: (ms: number) => void): Promise<void> {
  const ms = untilLocalMs - Date.now()
  if (ms <= 0) return Promise.resolve()
  shard.sleepingUntil = untilLocalMs
  const from = Date.now()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      onSlept?.(Date.now() - from)
      shard.wake = undefined
      shard.sleepingUntil = 0
      resolve()
    }
    shard.wake = done
  })
}

/**
 * Subscribes to the shards' wake channels; resolves to the unsubscribe. Without a subscriber the poll covers it.
 * A signal wakes a shard whose sleep ends after the new job's due time plus the dispatch window.
 */
export async function subscribeWakes(
  sub: RedisClient | undefined,
  shards: ShardState[],
  clock: RedisClock,
  logger: Log,
  windowMs = 0,
): Promise<() => Promise<void>> {
  if (!sub) return async () => {}
  const byChannel = new Map(shards.map((s) => [s.keys.wakeChannel, s]))
  const onMessage = (channel: string, message: string) => {
    const shard = byChannel.get(channel)
    if (!shard) return
    const [due, bucket] = message.split(':')
    if (bucket && !shard.hints.includes(bucket)) shard.hints = [bucket, ...shard.hints]
    if (shard.wake && clock.toLocal(Number(due)) + windowMs < shard.sleepingUntil) shard.wake()
  }
  sub.on('message', onMessage)
  try {
    await sub.subscribe(...byChannel.keys())
  } catch (e) {
    // Without wake signals the loop still works, on the poll interval.
    logger.warn('wake subscription failed', { error: String(e) })
  }
  return async () => {
    sub.off('message', onMessage)
    await sub.unsubscribe(...byChannel.keys()).catch(() => {})
  }
}
