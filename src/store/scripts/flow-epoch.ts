// lua/flow-epoch.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order). Its reply is 1 or 0 (written, or the shard had that version or a newer one); the writer does not read it.
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

export function flowEpochCall(shard: ShardKeys, epoch: string) {
  const call: ScriptCall<number> = { script: 'sdqFlowEpoch', keys: { epoch: shard.flowEpoch }, args: { epoch } }
  return call
}
