// The Lua scripts, registered once per client with ioredis defineCommand (EVALSHA, EVAL on NOSCRIPT).
import type { Cluster, Redis } from 'ioredis'
import ackLua from '../../lua/ack.lua'
import cancelLua from '../../lua/cancel.lua'
import claimLua from '../../lua/claim.lua'
import enqueueLua from '../../lua/enqueue.lua'
import getLua from '../../lua/get.lua'
import releaseLua from '../../lua/release.lua'
import reviveLua from '../../lua/revive.lua'

export type RedisClient = Redis | Cluster
type Arg = string | number

/** The script commands; each call passes KEYS first, then ARGV (claim: the key count first). */
export interface ScriptCommands {
  sdqEnqueue(...args: Arg[]): Promise<unknown>
  sdqGet(...args: Arg[]): Promise<unknown>
  sdqCancel(...args: Arg[]): Promise<unknown>
  sdqClaim(numberOfKeys: number, ...args: Arg[]): Promise<unknown>
  sdqAck(...args: Arg[]): Promise<unknown>
  sdqRelease(...args: Arg[]): Promise<unknown>
  sdqRevive(...args: Arg[]): Promise<unknown>
}

const SCRIPTS: Record<keyof ScriptCommands, { lua: string; numberOfKeys?: number }> = {
  sdqEnqueue: { lua: enqueueLua, numberOfKeys: 10 },
  sdqGet: { lua: getLua, numberOfKeys: 6 },
  sdqCancel: { lua: cancelLua, numberOfKeys: 8 },
  sdqClaim: { lua: claimLua }, // variable key count: the due buckets to look at
  sdqAck: { lua: ackLua, numberOfKeys: 5 },
  sdqRelease: { lua: releaseLua, numberOfKeys: 6 },
  sdqRevive: { lua: reviveLua, numberOfKeys: 6 },
}

const registered = new WeakSet<object>()

export type ScriptedClient = RedisClient & ScriptCommands

export function withScripts(client: RedisClient): ScriptedClient {
  if (!registered.has(client)) {
    for (const [name, def] of Object.entries(SCRIPTS)) client.defineCommand(name, def)
    registered.add(client)
  }
  return client as ScriptedClient
}

/** A pipeline with the script commands on it. */
export type ScriptedPipeline = ReturnType<RedisClient['pipeline']> & {
  [K in keyof ScriptCommands]: (...args: Parameters<ScriptCommands[K]>) => ScriptedPipeline
}
