// On-demand scan mode, the store's side of "one start at a time". The enqueue script takes its own shard's start
// guard (lua/enqueue.lua) and says so; with several shards, shard 0's guard stands for the whole deployment, so a
// start asked for by another shard must take that one too. The guards stay while the scanner runs (its alive marker
// keeps enqueues from asking anyway) and go when it retires (src/scan/presence.ts), or expire.
import type { Config } from '../config'
import type { Keyspace } from './keys'
import type { ScriptedClient } from './scripts'

/** On-demand scan mode, as the enqueue script sees it (lua/enqueue.lua: startHorizon, startGuardMs). */
export interface ScanStartOptions {
  /** A job due sooner than this while no scanner runs asks for one; 0 never asks. */
  horizonMs: number
  /** How long one start keeps the others away. */
  guardMs: number
}

/**
 * How long a start keeps other enqueues from asking for another: longer than a cold start of the scan function
 * (about 1-2 s with a VPC), short enough that a start that got lost (throttled invoke) is tried again soon.
 */
export const SCAN_START_GUARD_MS = 10_000

/**
 * What the enqueue script needs. Asking only makes sense in on-demand mode and for a caller that can start the scan
 * function (by default: one that knows its name); one that cannot must not take the guard from one that can.
 */
export function scanStartOptions(config: Config, canStart = Boolean(config.scanFunctionName)): ScanStartOptions {
  const asks = config.scanMode === 'on-demand' && canStart
  return { horizonMs: asks ? config.onDemandHorizonMs : 0, guardMs: SCAN_START_GUARD_MS }
}

/** After the script of `shard` took its guard: true when this caller is the one to start the scanner. */
export async function takeScanStart(redis: ScriptedClient, keys: Keyspace, shard: number): Promise<boolean> {
  if (shard === 0) return true
  const taken = await redis.set(keys.shards[0]!.scanStart, '1', 'PX', SCAN_START_GUARD_MS, 'NX')
  return taken === 'OK'
}

/** A start that failed gives its guards back, so the next enqueue asks again instead of waiting for the expiry. */
export async function releaseScanStart(redis: ScriptedClient, keys: Keyspace, shard: number): Promise<void> {
  await Promise.all([...new Set([0, shard])].map((i) => redis.del(keys.shards[i]!.scanStart)))
}

/**
 * For writes that do not go through the enqueue script (a schedule's first occurrence, written by
 * lua/schedule-put.lua): true when no scanner is alive and this caller took shard 0's guard. Two steps, not one
 * script, and still no gap: the job is written before this looks, and a retiring scanner removes its marker before
 * it looks at the due times (src/scan/on-demand.ts), so one of the two sees the other.
 */
export async function takeScanStartUnlessAlive(redis: ScriptedClient, keys: Keyspace): Promise<boolean> {
  const shard0 = keys.shards[0]!
  if ((await redis.exists(shard0.scannerAlive)) === 1) return false
  return (await redis.set(shard0.scanStart, '1', 'PX', SCAN_START_GUARD_MS, 'NX')) === 'OK'
}
