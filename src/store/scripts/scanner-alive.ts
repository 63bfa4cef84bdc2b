// lua/scanner-alive.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order). Its reply is a count.
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** lua/scanner-alive.lua: how many runs are alive on the shard, this one included. */
export function scannerAliveCall(shard: ShardKeys, owner: string, ttlMs: number): ScriptCall<number> {
  return { script: 'sdqScannerAlive', keys: { scanner: shard.scannerAlive }, args: { owner, ttlMs } }
}
