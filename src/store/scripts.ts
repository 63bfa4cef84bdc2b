// The Lua scripts, registered once per client with ioredis defineCommand (EVALSHA, EVAL on NOSCRIPT), and the one
// way to run them: a call built in src/store/script-calls.ts, which knows each script's KEYS and ARGV by name.
import type { Cluster, Redis } from 'ioredis'
import ackLua from '../../lua/ack.lua'
import cancelLua from '../../lua/cancel.lua'
import claimLua from '../../lua/claim.lua'
import enqueueLua from '../../lua/enqueue.lua'
import getLua from '../../lua/get.lua'
import releaseLua from '../../lua/release.lua'
import reviveLua from '../../lua/revive.lua'
import type { ScriptCall } from './script-calls'

export type RedisClient = Redis | Cluster
type Arg = string | number

/** The scripts by command name. */
export const LUA_SCRIPTS = {
  sdqEnqueue: enqueueLua,
  sdqGet: getLua,
  sdqCancel: cancelLua,
  sdqClaim: claimLua,
  sdqAck: ackLua,
  sdqRelease: releaseLua,
  sdqRevive: reviveLua,
} as const

export type ScriptName = keyof typeof LUA_SCRIPTS

/** Every script takes its key count first: the call built for it knows how many keys it has. */
export type ScriptCommands = Record<ScriptName, (numberOfKeys: number, ...args: Arg[]) => Promise<unknown>>

const registered = new WeakSet<object>()

export type ScriptedClient = RedisClient & ScriptCommands

export function withScripts(client: RedisClient): ScriptedClient {
  if (!registered.has(client)) {
    for (const [name, lua] of Object.entries(LUA_SCRIPTS)) client.defineCommand(name, { lua })
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
