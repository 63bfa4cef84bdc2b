// A shard's sleep between claims, and the wake signals that cut it short: an enqueue that makes a job the shard's
// earliest publishes "dueMs:bucket" on the shard's channel (lua/enqueue.lua), so precision does not depend on the
// poll interval.
import type { Log } from '../../logger'
import type { ShardKeys } from '../../store/keys'
import type { RedisClient } from '../../store/scripts'
import type { RedisClock } from './clock'
import type { ClaimResult } from '../claims/claimed-job'

export interface ShardState {
  keys: ShardKeys
  hints: string[]
  /** Resolves the current sleep early (wake signal, or the run stops). */
  wake?: () => void
  /** Moves the current sleep's end to an earlier time (a retry's); set while the shard sleeps. */
  retarget?: (localMs: number) => void
  /** The earliest retry time that came while the shard was awake (mid-claim): its next sleep ends by then. */
  wakeByMs?: number
  sleepingUntil: number
  /** The current sleep ends at a due time (not the poll, nor the deadline): a claim will find work then. */
  sleepsForDue?: boolean
  /**
   * The current sleep ends when a full request's jobs are due (Redis ms): the claims then take those only, until the
   * next planSleep (after the claims that must be made again at once) sets it anew.
   */
  fullBy?: number
  /**
   * A job reads as due just after the run's deadline, within the error of the clock's reading: on Redis's own clock it
   * may be due before it. The run then makes one claim more at its deadline (set by planSleep).
   */
  dueByDeadline?: boolean
  /** This run made its claim at the deadline for such a job (owesClaim). */
  deadlineClaimMade?: boolean
}

/** A run's last claim comes this long before its deadline, for a job whose window would outlast the run. */
const LAST_CLAIM_MS = 50
/**
 * A full request's claim comes this long after its tenth job's due time, beyond the error of the clock's reading
 * (RedisClock.errorMs): a claim that reaches Redis before that time takes only the jobs due by then (lua/claim.lua), a
 * short request sent before ten were due or the window ended, and the rest start the next window. Late is harmless: the
 * wake never passes the first job's window. The slack covers the whole milliseconds of both clocks and a timer that
 * fires a hair early.
 */
const FULL_CLAIM_SLACK_MS = 3

/**
 * When a shard that has nothing more to claim now wakes (local ms): at its earliest due time + the dispatch window,
 * or sooner once a SendMessageBatch's worth of jobs is due on Redis's clock whatever the error of our reading of it
 * (the window only exists to fill requests: a full one leaves at once, so in a fast stream jobs wait far less than
 * the window), at its earliest lease expiry or retry time (never held for the window), after the poll interval (+ the
 * window, or a poll would cut the window short), or at the deadline. A job due before the deadline leaves in this run, its
 * window cut short if need be (claimed 50 ms before the deadline, or at its due time when that is later): the next
 * run may start seconds later. Notes on the shard whether the sleep ends at a due time, and whether a job read as due
 * after the deadline may be due before it (a claim takes only what is due on Redis's clock, so one at the deadline
 * is never early).
 */
export function planSleep(
  shard: ShardState,
  claim: Pick<ClaimResult, 'nextDueMs' | 'nextInflightMs'> & Partial<Pick<ClaimResult, 'fullAtMs'>>,
  clock: RedisClock,
  o: { pollIntervalMs: number; windowMs: number; untilMs: number },
): number {
  const local = (redisMs: number | null) => (redisMs === null ? Infinity : clock.toLocal(redisMs))
  // A lease expiry or a retry is not held for the window; when one comes first, the scheduled jobs (due no sooner)
  // are planned again after it.
  const inflight = local(claim.nextInflightMs)
  const scheduled = inflight <= local(claim.nextDueMs) ? Infinity : local(claim.nextDueMs)
  const lastClaimAt = o.untilMs - LAST_CLAIM_MS
  const full = local(claim.fullAtMs ?? null) + clock.errorMs + FULL_CLAIM_SLACK_MS
  const due = Math.min(scheduled + o.windowMs, Math.max(scheduled, full))
  const target = Math.min(scheduled < o.untilMs ? Math.min(due, Math.max(lastClaimAt, scheduled)) : due, inflight)
  const wakeAt = Math.min(target, Date.now() + o.pollIntervalMs + o.windowMs, o.untilMs)
  shard.sleepsForDue = wakeAt === target
  shard.dueByDeadline = scheduled >= o.untilMs && scheduled < o.untilMs + clock.errorMs
  shard.fullBy = wakeAt === full && claim.fullAtMs != null ? claim.fullAtMs : undefined
  return wakeAt
}

/**
 * Whether the shard, awake after sleeping until `wakeAt`, owes a claim even past the run's deadline: one planned for
 * a due time before it that a busy event loop fired late, or, once a run, one at the deadline for a job that may fall
 * due by then (dueByDeadline). Once only: a job due just after the deadline would else be claimed for again and again
 * for as long as the reading's error lasts.
 */
export function owesClaim(shard: ShardState, wakeAt: number, untilMs: number): boolean {
  if (wakeAt < untilMs) return !!shard.sleepsForDue
  if (!shard.dueByDeadline || shard.deadlineClaimMade) return false
  shard.deadlineClaimMade = true
  return true
}

/**
 * A job of this shard was released for a retry at `localMs`: the shard's sleep ends by then (not at once: a claim
 * now would take jobs still inside their dispatch window). A shard that is awake, claiming, may not have seen the
 * release: its next sleep ends by then.
 */
export function bringForward(shard: ShardState, localMs: number): void {
  if (!shard.retarget) shard.wakeByMs = Math.min(shard.wakeByMs ?? Infinity, localMs)
  else if (localMs < shard.sleepingUntil) shard.retarget(localMs)
}

/** Sleeps until `untilLocalMs` (or an earlier retry time) unless woken first; reports how long it slept. */
export function sleepShard(shard: ShardState, untilLocalMs: number, onSlept?: (ms: number) => void): Promise<void> {
  const until = Math.min(untilLocalMs, shard.wakeByMs ?? Infinity)
  shard.wakeByMs = undefined
  if (until - Date.now() <= 0) return Promise.resolve()
  shard.sleepingUntil = until
  const from = Date.now()
  return new Promise<void>((resolve) => {
    let timer = setTimeout(done, until - Date.now())
    function done() {
      clearTimeout(timer)
      onSlept?.(Date.now() - from)
      shard.wake = undefined
      shard.retarget = undefined
      shard.sleepingUntil = 0
      resolve()
    }
    shard.wake = done
    shard.retarget = (at) => {
      clearTimeout(timer)
      shard.sleepingUntil = at
      timer = setTimeout(done, Math.max(0, at - Date.now()))
    }
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
