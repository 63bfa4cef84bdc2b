// On-demand scan mode, the store's side of "one start at a time". The enqueue script takes its own shard's start
// guard (lua/enqueue.lua), writing the job's id into it as the start's token, and says so; with several shards,
// shard 0's guard stands for the whole deployment, so a start asked for by another shard must take that one too,
// with the same token. A guard goes only for the start that holds it (compare-and-delete): when its scanner is up,
// when the start gave up (so the next enqueue asks again), or when the scan it started ends
// (lua/scanner-retire.lua); else it expires.
import type { Config } from '../../config'
import type { Keyspace } from '../../store/keys'
import { scanStartReleaseCall } from '../../store/scripts/scan-start-release'
import { runScript, type ScriptedClient } from '../../store/scripts'

/** On-demand scan mode, as the enqueue script sees it (lua/enqueue.lua: startHorizon, startGuardMs). */
export interface ScanStartOptions {
  /** A job due sooner than this while no scanner runs asks for one; 0 never asks. */
  horizonMs: number
  /** How long one start keeps the others away. */
  guardMs: number
}

/**
 * How long a start keeps other enqueues from asking for another when nothing gives its guard back (the starting
 * process died or was frozen): longer than a start's own retries (src/on-demand/start/scan-starter.ts), which end by
 * giving the guard back or seeing a scanner up.
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

/** After the script of `shard` took its guard with `token`: true when this caller is the one to start the scanner. */
export async function takeScanStart(
  redis: ScriptedClient,
  keys: Keyspace,
  shard: number,
  token: string,
): Promise<boolean> {
  if (shard === 0) return true
  const taken = await redis.set(keys.shards[0]!.scanStart, token, 'PX', SCAN_START_GUARD_MS, 'NX')
  return taken === 'OK'
}

/**
 * Gives back the guards of `shard` and shard 0 where they still hold `token` (a later start's guard stays): at once,
 * or, once a scanner is up, in `keepMs`, so that an enqueue that asked just before the scanner's marker reached its
 * shard finds shard 0's guard still taken.
 */
export async function releaseScanStart(
  redis: ScriptedClient,
  keys: Keyspace,
  shard: number,
  token: string,
  keepMs = 0,
): Promise<void> {
  const shards = [...new Set([0, shard])]
  await Promise.all(shards.map((i) => runScript(redis, scanStartReleaseCall(keys.shards[i]!, token, keepMs))))
}

/** Whether a scanner is alive: marked on shard 0 (`everyShard`: on every shard, as a started scanner marks them). */
export async function scannerAlive(redis: ScriptedClient, keys: Keyspace, everyShard = false): Promise<boolean> {
  const shards = everyShard ? keys.shards : [keys.shards[0]!]
  const marked = await Promise.all(shards.map((s) => redis.exists(s.scannerAlive)))
  return marked.every((n) => n === 1)
}

/**
 * For writes that do not go through the enqueue script (a schedule's first occurrence, written by
 * lua/schedule-put.lua): true when no scanner is alive and this caller took shard 0's guard with `token`. Two
 * steps, not one script, and still no gap: the job is written before this looks, and a retiring scanner looks at
 * the due times in the same step that removes its marker (lua/scanner-retire.lua), so one of the two sees the other.
 */
export async function takeScanStartUnlessAlive(redis: ScriptedClient, keys: Keyspace, token: string): Promise<boolean> {
  if (await scannerAlive(redis, keys)) return false
  return (await redis.set(keys.shards[0]!.scanStart, token, 'PX', SCAN_START_GUARD_MS, 'NX')) === 'OK'
}

/** The `source` of the event a started scan function receives (a scheduled one gets EventBridge's). */
export const SCAN_START_SOURCE = 'sdq.enqueue'

/** The event an enqueue's start sends the scan function: it carries the start guard's token. */
export interface ScanStartEvent {
  source: typeof SCAN_START_SOURCE
  'detail-type': 'Scan Start'
  /** The start guard's token: the started run gives that guard back as it ends (lua/scanner-retire.lua). */
  startToken?: string
}

export function scanStartEvent(startToken: string): ScanStartEvent {
  return { source: SCAN_START_SOURCE, 'detail-type': 'Scan Start', startToken }
}

/** How a scan invocation was started, from its event: by an enqueue (with the guard's token), or on a tick. */
export function scanStartOf(event: unknown): { startedBy: 'tick' | 'enqueue'; startToken: string | null } {
  const e = (event ?? {}) as { source?: unknown; startToken?: unknown }
  if (e.source !== SCAN_START_SOURCE) return { startedBy: 'tick', startToken: null }
  return { startedBy: 'enqueue', startToken: typeof e.startToken === 'string' ? e.startToken : null }
}
