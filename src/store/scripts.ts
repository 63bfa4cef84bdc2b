// The Lua scripts, registered once per client with ioredis defineCommand (EVALSHA, EVAL on NOSCRIPT), and the one
// way to run them: a call built by the script's own module (src/store/scripts/<name>.ts), which knows its KEYS and
// ARGV by name and reads its reply.
//
// A script names the shared helpers it uses on its header's "Helpers:" line; they are prepended to it here, each a
// `local function` from lua/includes/<name>.lua (Redis 7 forbids globals), so a script carries only what it uses
// (and the helpers those helpers call: the schedule helpers build on the job ones).
import { createHash } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import ackLua from '../../lua/ack.lua'
import cancelLua from '../../lua/cancel.lua'
import claimLua from '../../lua/claim.lua'
import enqueueLua from '../../lua/enqueue.lua'
import getLua from '../../lua/get.lua'
import recordHeadsLua from '../../lua/record-heads.lua'
import countBy from '../../lua/includes/countBy.lua'
import decodeLease from '../../lua/includes/decodeLease.lua'
import receiptToken from '../../lua/includes/receiptToken.lua'
import requestDigest from '../../lua/includes/requestDigest.lua'
import encodeLease from '../../lua/includes/encodeLease.lua'
import holdsLease from '../../lua/includes/holdsLease.lua'
import jobSideKeys from '../../lua/includes/jobSideKeys.lua'
import movePending from '../../lua/includes/movePending.lua'
import nowMs from '../../lua/includes/nowMs.lua'
import queueOf from '../../lua/includes/queueOf.lua'
import reindexBucket from '../../lua/includes/reindexBucket.lua'
import waitsForRetry from '../../lua/includes/waitsForRetry.lua'
import wakeIfEarliest from '../../lua/includes/wakeIfEarliest.lua'
import relayHandBackLua from '../../lua/relay-hand-back.lua'
import releaseLua from '../../lua/release.lua'
import scanStartReleaseLua from '../../lua/scan-start-release.lua'
import schedulerLockReleaseLua from '../../lua/scheduler-lock-release.lua'
import scannerAliveLua from '../../lua/scanner-alive.lua'
import scannerRetireLua from '../../lua/scanner-retire.lua'
import reviveLua from '../../lua/revive.lua'
import promoteLua from '../../lua/promote.lua'
import promoteDueLua from '../../lua/promote-due.lua'
import addOccurrence from '../../lua/includes/addOccurrence.lua'
import base36 from '../../lua/includes/base36.lua'
import decodeRecord from '../../lua/includes/decodeRecord.lua'
import decodeSchedule from '../../lua/includes/decodeSchedule.lua'
import dropUnleased from '../../lua/includes/dropUnleased.lua'
import maybeSent from '../../lua/includes/maybeSent.lua'
import encodeRecord from '../../lua/includes/encodeRecord.lua'
import encodeSchedule from '../../lua/includes/encodeSchedule.lua'
import expireReceipts from '../../lua/includes/expireReceipts.lua'
import recordTags from '../../lua/includes/recordTags.lua'
import indexTags from '../../lua/includes/indexTags.lua'
import keepReceipt from '../../lua/includes/keepReceipt.lua'
import occurrenceId from '../../lua/includes/occurrenceId.lua'
import parseOccurrenceId from '../../lua/includes/parseOccurrenceId.lua'
import scheduleAckLua from '../../lua/schedule-ack.lua'
import scheduleDeleteLua from '../../lua/schedule-delete.lua'
import schedulePutLua from '../../lua/schedule-put.lua'
import walkAdvanceLua from '../../lua/walk-advance.lua'
import walkStartLua from '../../lua/walk-start.lua'
import deepPageRateLua from '../../lua/deep-page-rate.lua'
import tagCancelLua from '../../lua/tag-cancel.lua'
import flowEpochLua from '../../lua/flow-epoch.lua'
import flowHoldLua from '../../lua/flow-hold.lua'
import flowSetLua from '../../lua/flow-set.lua'
import flowResumeLua from '../../lua/flow-resume.lua'
import flowTakeLua from '../../lua/flow-take.lua'
import flowPace from '../../lua/includes/flowPace.lua'
import inSlices from '../../lua/includes/inSlices.lua'
import peekBucket from '../../lua/includes/peekBucket.lua'
import takeFromBucket from '../../lua/includes/takeFromBucket.lua'
import fullAtInFewBuckets from '../../lua/includes/fullAtInFewBuckets.lua'
import retakeExpired from '../../lua/includes/retakeExpired.lua'
import tagPromoteLua from '../../lua/tag-promote.lua'

export type RedisClient = Redis | Cluster

/** The shared Lua helpers, in the order they are prepended (a helper may only use those before it). */
export const LUA_HELPERS: Readonly<Record<string, string>> = {
  jobSideKeys,
  nowMs,
  queueOf,
  countBy,
  movePending,
  reindexBucket,
  encodeLease,
  decodeLease,
  receiptToken,
  requestDigest,
  waitsForRetry,
  holdsLease,
  wakeIfEarliest,
  base36,
  encodeRecord,
  decodeRecord,
  occurrenceId,
  parseOccurrenceId,
  decodeSchedule,
  encodeSchedule,
  maybeSent,
  dropUnleased,
  recordTags,
  indexTags,
  addOccurrence,
  keepReceipt,
  expireReceipts,
  flowPace,
  inSlices,
  peekBucket,
  takeFromBucket,
  fullAtInFewBuckets,
  retakeExpired,
}

/** The scripts by command name, as written in lua/ (before their helpers are prepended). */
export const LUA_SCRIPTS = {
  sdqEnqueue: enqueueLua,
  sdqGet: getLua,
  sdqCancel: cancelLua,
  sdqClaim: claimLua,
  sdqAck: ackLua,
  sdqRelease: releaseLua,
  sdqRevive: reviveLua,
  sdqPromote: promoteLua,
  sdqPromoteDue: promoteDueLua,
  sdqSchedulePut: schedulePutLua,
  sdqScheduleDelete: scheduleDeleteLua,
  sdqScheduleAck: scheduleAckLua,
  sdqRelayHandBack: relayHandBackLua,
  sdqRecordHeads: recordHeadsLua,
  sdqWalkStart: walkStartLua,
  sdqWalkAdvance: walkAdvanceLua,
  sdqDeepPageRate: deepPageRateLua,
  sdqScannerAlive: scannerAliveLua,
  sdqScannerRetire: scannerRetireLua,
  sdqScanStartRelease: scanStartReleaseLua,
  sdqTagCancel: tagCancelLua,
  sdqTagPromote: tagPromoteLua,
  sdqSchedulerLockRelease: schedulerLockReleaseLua,
  sdqFlowTake: flowTakeLua,
  sdqFlowHold: flowHoldLua,
  sdqFlowResume: flowResumeLua,
  sdqFlowSet: flowSetLua,
  sdqFlowEpoch: flowEpochLua,
} as const

export type ScriptName = keyof typeof LUA_SCRIPTS

export type Arg = string | number

/** A script's keys (a list spreads in place: claim's due buckets) and arguments by name, in KEYS / ARGV order. */
export interface ScriptCall<R> {
  script: ScriptName
  keys: Readonly<Record<string, string | readonly string[]>>
  args: Readonly<Record<string, Arg | readonly Arg[]>>
  /** Never set: carries the type of the script's reply to runScript. */
  readonly reply?: R
}

/** The helper names on a script's "Helpers:" header line ("none" for none). */
export function helpersOf(lua: string): string[] {
  const header = lua.slice(0, lua.indexOf(']]'))
  const line = /^\s*Helpers:(.*)$/m.exec(header)
  if (!line) throw new Error('a Lua script header must name its helpers ("Helpers: none" for none)')
  return line[1]!
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== 'none')
}

/** The helpers named, and the helpers they call, transitively (a helper calls only helpers listed before it). */
export function helperClosure(names: Iterable<string>): Set<string> {
  const wanted = new Set<string>()
  const visit = (name: string) => {
    if (wanted.has(name)) return
    if (!(name in LUA_HELPERS)) throw new Error(`no Lua helper ${name} in lua/includes/`)
    wanted.add(name)
    for (const [, fn] of LUA_HELPERS[name]!.matchAll(/\b(\w+)\(/g)) if (fn !== name && fn! in LUA_HELPERS) visit(fn!)
  }
  for (const name of names) visit(name)
  return wanted
}

/**
 * A script with the helpers its header names (and theirs) prepended: the text Redis runs. A first line `#!lua ...`
 * (Redis 7 script flags, such as allow-oom) stays the first line.
 */
export function composeScript(lua: string): string {
  const wanted = helperClosure(helpersOf(lua))
  const helpers = Object.entries(LUA_HELPERS)
    .filter(([name]) => wanted.has(name))
    .map(([, text]) => text)
  const { shebang, body } = splitShebang(lua)
  return [...(shebang ? [shebang] : []), ...helpers, body].join('\n')
}

/** A script's `#!lua` line (flags for Redis 7), if it has one, and the rest. */
export function splitShebang(lua: string): { shebang?: string; body: string } {
  if (!lua.startsWith('#!')) return { body: lua }
  const end = lua.indexOf('\n')
  return { shebang: lua.slice(0, end), body: lua.slice(end + 1) }
}

/** Every script takes its key count first: the call built for it knows how many keys it has. */
export type ScriptCommands = Record<ScriptName, (numberOfKeys: number, ...args: Arg[]) => Promise<unknown>>

const registered = new WeakSet<object>()

export type ScriptedClient = RedisClient & ScriptCommands

export function withScripts(client: RedisClient): ScriptedClient {
  if (!registered.has(client)) {
    for (const [name, lua] of Object.entries(LUA_SCRIPTS)) client.defineCommand(name, { lua: composeScript(lua) })
    registered.add(client)
  }
  return client as ScriptedClient
}

/** A pipeline with the script commands on it. */
export type ScriptedPipeline = ReturnType<RedisClient['pipeline']> & {
  [K in ScriptName]: (...args: Parameters<ScriptCommands[K]>) => ScriptedPipeline
}

/** KEYS then ARGV, each in the order the call lists them by name (a list spreads in place), after the key count. */
function commandArgs(call: ScriptCall<unknown>): [number, ...Arg[]] {
  const keys = Object.values(call.keys).flat()
  return [keys.length, ...keys, ...Object.values(call.args).flat()]
}

/** Run a script; the reply is typed by the call that built it. */
export function runScript<R>(redis: ScriptedClient, call: ScriptCall<R>): Promise<R> {
  return redis[call.script](...commandArgs(call)) as Promise<R>
}

/** Queue a script on a pipeline (its reply comes back untyped from exec()). */
export function queueScript(pipeline: ScriptedPipeline, call: ScriptCall<unknown>): ScriptedPipeline {
  return pipeline[call.script](...commandArgs(call))
}

const sources = new Map<ScriptName, { lua: string; sha: string }>()

/** The text Redis runs for a script, and its SHA1 (what EVALSHA names). */
export function scriptSource(name: ScriptName): { lua: string; sha: string } {
  let source = sources.get(name)
  if (!source) {
    const lua = composeScript(LUA_SCRIPTS[name])
    source = { lua, sha: createHash('sha1').update(lua).digest('hex') }
    sources.set(name, source)
  }
  return source
}

/**
 * Queue a script as a plain EVALSHA (or EVAL with its text), without ioredis's NOSCRIPT fallback. That fallback
 * re-sends the script on its own, after the rest of the pipeline: behind a WAIT that then confirms everything but
 * that write. A pipeline that must keep its writes before its WAIT gets NOSCRIPT back instead, and sends the
 * refused scripts again with their text.
 */
export function queueScriptAs(
  pipeline: ScriptedPipeline,
  call: ScriptCall<unknown>,
  as: 'evalsha' | 'eval',
): ScriptedPipeline {
  const { lua, sha } = scriptSource(call.script)
  const [numberOfKeys, ...rest] = commandArgs(call)
  return (
    as === 'eval' ? pipeline.eval(lua, numberOfKeys, ...rest) : pipeline.evalsha(sha, numberOfKeys, ...rest)
  ) as ScriptedPipeline
}
