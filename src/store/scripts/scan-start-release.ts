// lua/scan-start-release.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the
// header's order). Its reply is 1 or 0; the starter does not read it.
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** lua/scan-start-release.lua: 1 when the shard's start guard held `token` (removed, or lapsing in `keepMs`). */
export function scanStartReleaseCall(shard: ShardKeys, token: string, keepMs = 0): ScriptCall<number> {
  return { script: 'sdqScanStartRelease', keys: { start: shard.scanStart }, args: { token, keepMs } }
}
